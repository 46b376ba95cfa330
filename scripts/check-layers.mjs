#!/usr/bin/env node
// Fails when a module under src/ imports one in a higher layer, or one in another folder of its own
// layer. The layers are the fenced `layers` block of docs/architecture.md, top to bottom, one line a
// layer, folders on a line being peers; a folder is named by its path under src/ (`api/wire` may sit
// apart from `api`), and `main.ts` stands for the entry file. Every import counts: value and type-only
// imports, re-exports and `import()`, because a type-only edge couples meaning as much as a value one.
// Usage: node scripts/check-layers.mjs [--doc docs/architecture.md] [--root src]
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { importsOf, sourceFiles } from './import-graph.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const docPath = resolve(opt('--doc', 'docs/architecture.md'));
const root = resolve(opt('--root', 'src'));

/** The layers, top first: each a list of folder paths relative to src/. */
function readLayers(path) {
  const text = readFileSync(path, 'utf8');
  const m = /```layers\n([\s\S]*?)```/.exec(text);
  if (!m) throw new Error(`${path}: no \`\`\`layers block`);
  return m[1]
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((l) => l.split(/\s+/));
}

const layers = readLayers(docPath);
const rank = new Map();
layers.forEach((folders, i) => {
  for (const f of folders) rank.set(f, i);
});
// Longest folder first, so `api/wire/x.ts` belongs to `api/wire`, not `api`.
const units = [...rank.keys()].sort((a, b) => b.length - a.length);
function unitOf(file) {
  const rel = relative(root, file).split('\\').join('/');
  return units.find((u) => rel === u || rel.startsWith(`${u}/`)) ?? null;
}

const problems = [];
const files = sourceFiles(root);
for (const file of files) {
  const from = unitOf(file);
  const rel = relative(process.cwd(), file);
  if (from === null) {
    problems.push(`${rel}: its folder is in no layer of ${relative(process.cwd(), docPath)}`);
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

if (problems.length === 0) {
  console.log(`layers hold: ${files.length} modules in ${layers.length} layers`);
} else {
  for (const p of problems) console.error(p);
  console.error(
    `${problems.length} import(s) against the layer order in ${relative(process.cwd(), docPath)}`,
  );
  process.exit(1);
}
