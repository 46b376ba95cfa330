// The shared dashboard model (src/dashboard) is framework- and platform-free: both the Preact dashboard and the
// terminal one import it, so it may import only itself, the pure schedule engine and the helpers that engine
// needs. tsconfig in src/dashboard already rejects DOM and Node globals; this pins the import edges, which a
// package's own type references (preact pulls in the DOM lib) would otherwise hide from the compiler.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const model = join(root, 'src/dashboard');
const ALLOWED = ['src/dashboard/', 'src/schedule/', 'src/util/errors.ts', 'src/util/hash.ts'];
const ALLOWED_PACKAGES = ['@noble/hashes/sha2', '@noble/hashes/utils'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every import specifier of the model and of what it reaches, as `file -> target` lines. */
function reachableImports(): { edges: string[]; packages: string[] } {
  const seen = new Set<string>();
  const queue = filesUnder(model).filter((f) => !f.endsWith('.d.ts'));
  const edges: string[] = [];
  const packages: string[] = [];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const ref of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!ref.fileName.startsWith('.')) {
        packages.push(ref.fileName);
        continue;
      }
      const target = resolve(dirname(file), ref.fileName);
      edges.push(relative(root, target));
      queue.push(target);
    }
  }
  return { edges, packages };
}

describe('src/dashboard boundary', () => {
  const { edges, packages } = reachableImports();

  it('reaches only the model, the schedule engine and its pure helpers', () => {
    expect(edges.length).toBeGreaterThan(10);
    expect(edges.filter((e) => !ALLOWED.some((a) => e.startsWith(a)))).toEqual([]);
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
