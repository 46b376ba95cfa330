// The shared dashboard model (src/dashboard) is framework- and platform-free: both the Preact dashboard and the
// terminal one import it, so it may import only itself, the pure schedule engine and the helpers that engine
// needs. The shapes of the API it reads are the wire contract's types (src/api/wire), imported type-only, so
// the bundles never load the schemas or zod. tsconfig in src/dashboard already rejects DOM and Node globals;
// this pins the import edges, which a package's own type references (preact pulls in the DOM lib) would
// otherwise hide from the compiler.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const model = join(root, 'src/dashboard');
const ALLOWED = [
  'src/dashboard/',
  'src/schedule/',
  'src/util/backend-kinds.ts',
  'src/util/errors.ts',
  'src/util/hash.ts',
  'src/util/slot-outcomes.ts',
];
const ALLOWED_PACKAGES = ['@noble/hashes/sha2', '@noble/hashes/utils'];
/** Reached by type-only imports alone: erased from every bundle, and not followed further. */
const WIRE = 'src/api/wire/';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** A module's import and re-export specifiers, each with whether it is type-only. */
function importsOf(file: string): { spec: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: { spec: string; typeOnly: boolean }[] = [];
  for (const node of source.statements) {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier))
      out.push({ spec: node.moduleSpecifier.text, typeOnly: node.importClause?.isTypeOnly === true });
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      out.push({ spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
  }
  // import() and require() too: they are values.
  for (const ref of ts.preProcessFile(source.text, true, true).importedFiles)
    if (!out.some((o) => o.spec === ref.fileName)) out.push({ spec: ref.fileName, typeOnly: false });
  return out;
}

/** Every value import of the model and of what it reaches, as targets; type-only ones apart. */
function reachableImports(): { edges: string[]; typeEdges: string[]; packages: string[] } {
  const seen = new Set<string>();
  const queue = filesUnder(model).filter((f) => !f.endsWith('.d.ts'));
  const edges: string[] = [];
  const typeEdges: string[] = [];
  const packages: string[] = [];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const { spec, typeOnly } of importsOf(file)) {
      if (!spec.startsWith('.')) {
        packages.push(spec);
        continue;
      }
      const target = resolve(dirname(file), spec);
      const rel = relative(root, target);
      if (typeOnly && rel.startsWith(WIRE)) {
        typeEdges.push(rel);
        continue;
      }
      edges.push(rel);
      queue.push(target);
    }
  }
  return { edges, typeEdges, packages };
}

describe('src/dashboard boundary', () => {
  const { edges, typeEdges, packages } = reachableImports();

  it('reaches only the model, the schedule engine and its pure helpers', () => {
    expect(edges.length).toBeGreaterThan(10);
    expect(edges.filter((e) => !ALLOWED.some((a) => e.startsWith(a)))).toEqual([]);
  });

  it('reads the API shapes as types of the wire contract, never its schemas as values', () => {
    expect(typeEdges.length).toBeGreaterThan(0);
    expect(edges.filter((e) => e.startsWith(WIRE))).toEqual([]);
  });

  it('imports no UI framework, DOM shim or Node built-in', () => {
    expect(packages.filter((p) => !ALLOWED_PACKAGES.includes(p))).toEqual([]);
  });

  it('is not imported back by the schedule engine', () => {
    const back = filesUnder(join(root, 'src/schedule')).filter((f) =>
      readFileSync(f, 'utf8').includes('dashboard/'),
    );
    expect(back).toEqual([]);
  });
});
