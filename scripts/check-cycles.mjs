#!/usr/bin/env node
// Fails when the modules under src/ import each other in a cycle. Every kind of import counts:
// value and type-only imports, re-exports, and `import()` (a lazy edge is still an edge: it
// couples the two modules' meaning even when it defers their evaluation).
// Usage: node scripts/check-cycles.mjs [dir]   (default: src)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(process.argv[2] ?? 'src');

function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'generated' && name !== 'node_modules') out.push(...sourceFiles(path));
    } else if (/\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The file a relative specifier names, or null for packages and built-ins. */
function resolveSpecifier(from, spec) {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    `${base}.ts`,
    `${base}.tsx`,
    join(base, 'index.ts'),
  ];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? null;
}

const files = sourceFiles(root);
const graph = new Map();
for (const file of files) {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const deps = new Set();
  for (const ref of info.importedFiles) {
    const target = resolveSpecifier(file, ref.fileName);
    if (target && target !== file) deps.add(target);
  }
  graph.set(file, [...deps]);
}

// Tarjan's strongly connected components: any component of more than one file is a cycle.
let index = 0;
const stack = [];
const meta = new Map();
const cycles = [];
function visit(v) {
  meta.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of graph.get(v) ?? []) {
    if (!graph.has(w)) continue;
    if (!meta.has(w)) {
      visit(w);
      meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
    } else if (meta.get(w).onStack) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
  }
  if (meta.get(v).low === meta.get(v).index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      meta.get(w).onStack = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component);
  }
}
for (const file of files) if (!meta.has(file)) visit(file);

if (cycles.length === 0) {
  console.log(`no import cycles among ${files.length} modules under ${relative(process.cwd(), root) || '.'}`);
} else {
  console.error(`${cycles.length} import cycle(s):`);
  for (const c of cycles)
    console.error(
      `  ${c
        .map((f) => relative(process.cwd(), f))
        .sort()
        .join('\n    ')}`,
    );
  process.exit(1);
}
