#!/usr/bin/env node
// Fails when the modules under src/ import each other in a cycle. Every kind of import counts:
// value and type-only imports, re-exports, and `import()` (a lazy edge is still an edge: it
// couples the two modules' meaning even when it defers their evaluation).
// Usage: node scripts/check-cycles.mjs [dir]   (default: src)
import { relative, resolve } from 'node:path';
import { importsOf, sourceFiles } from './import-graph.mjs';

const root = resolve(process.argv[2] ?? 'src');

const files = sourceFiles(root);
const graph = new Map();
for (const file of files) graph.set(file, [...new Set(importsOf(file).map((i) => i.target))]);

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
