// The module files under a source folder and the files their relative imports name: what the cycle
// check and the layer check both read. Every kind of import counts (value and type-only imports,
// re-exports, `import()`), as TypeScript's own pre-processor finds them.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/** The .ts/.tsx/.mts files under `dir`, without declarations and generated code. */
export function sourceFiles(dir) {
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
export function resolveSpecifier(from, spec) {
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

/** Each import of `file` that names a file: the specifier as written and the file it resolves to. */
export function importsOf(file) {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const out = [];
  for (const ref of info.importedFiles) {
    const target = resolveSpecifier(file, ref.fileName);
    if (target && target !== file) out.push({ spec: ref.fileName, target });
  }
  return out;
}
