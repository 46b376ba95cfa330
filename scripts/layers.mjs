// The layer rule behind scripts/check-layers.mjs (its header says the rule): the check as a function,
// so the CLI and the tests run the same code.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { importsOf, sourceFiles } from './import-graph.mjs';

/** The layers, top first: each a list of folder paths relative to src/. */
export function readLayers(path) {
  const text = readFileSync(path, 'utf8');
  const m = /```layers\n([\s\S]*?)```/.exec(text);
  if (!m) throw new Error(`${path}: no \`\`\`layers block`);
  return m[1]
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((l) => l.split(/\s+/));
}

/** Every import against the layer order of `docPath`, among the modules under `root`. */
export function checkLayers(docPath, root) {
  const layers = readLayers(docPath);
  const rank = new Map();
  layers.forEach((folders, i) => {
    for (const f of folders) rank.set(f, i);
  });
  // Longest folder first, so `api/wire/x.ts` belongs to `api/wire`, not `api`.
  const units = [...rank.keys()].sort((a, b) => b.length - a.length);
  const unitOf = (file) => {
    const rel = relative(root, file).split('\\').join('/');
    return units.find((u) => rel === u || rel.startsWith(`${u}/`)) ?? null;
  };
  const problems = [];
  const files = sourceFiles(root);
  for (const file of files) {
    const from = unitOf(file);
    const rel = relative(root, file);
    if (from === null) {
      problems.push(`${rel}: its folder is in no layer of ${docPath}`);
      continue;
    }
    for (const { spec, target } of importsOf(file)) {
      const to = unitOf(target);
      if (to === null || to === from) continue;
      const a = rank.get(from);
      const b = rank.get(to);
      if (b < a) problems.push(`${rel} imports ${spec}: ${from} may not import ${to}, a higher layer`);
      else if (b === a)
        problems.push(`${rel} imports ${spec}: ${from} and ${to} are peers and may not import each other`);
    }
  }
  return { problems, modules: files.length, layers: layers.length };
}
