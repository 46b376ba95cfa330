#!/usr/bin/env node
// Fails when a module under src/ imports one in a higher layer, or one in another folder of its own
// layer. The layers are the fenced `layers` block of docs/architecture.md, top to bottom, one line a
// layer, folders on a line being peers; a folder is named by its path under src/ (`api/wire` may sit
// apart from `api`), and `main.ts` stands for the entry file. Every import counts: value and type-only
// imports, re-exports and `import()`, because a type-only edge couples meaning as much as a value one.
// Usage: node scripts/check-layers.mjs [--doc docs/architecture.md] [--root src]
import { relative, resolve } from 'node:path';
import { checkLayers } from './layers.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const docPath = resolve(opt('--doc', 'docs/architecture.md'));
const root = resolve(opt('--root', 'src'));

const { problems, modules, layers } = checkLayers(docPath, root);
if (problems.length === 0) {
  console.log(`layers hold: ${modules} modules in ${layers} layers`);
} else {
  for (const p of problems) console.error(`${relative(process.cwd(), root)}/${p}`);
  console.error(
    `${problems.length} import(s) against the layer order in ${relative(process.cwd(), docPath)}`,
  );
  process.exit(1);
}
