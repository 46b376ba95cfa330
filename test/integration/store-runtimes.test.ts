// The same drizzle queries on every driver (DESIGN.md §2): one pass over the primitives and the
// views (fixtures/store-runtime-check.ts) under Node + better-sqlite3, Bun + bun:sqlite and
// Deno + node:sqlite must give one answer.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { runtimeBin } from '../../scripts/runtimes.mjs';
import { writeTree } from '../helpers/tmp.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHECK = join(ROOT, 'test/integration/fixtures/store-runtime-check.ts');

function check(cmd: string, args: string[]): Record<string, unknown> {
  const out = execFileSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>;
}

const withoutRuntime = ({ runtime: _, ...rest }: Record<string, unknown>) => rest;

describe('the store on every runtime', () => {
  let node: Record<string, unknown>;
  beforeAll(() => {
    node = check(process.execPath, ['--import', 'tsx', CHECK, join(writeTree({}, true), 's'), 'lanes']);
  });

  it('answers on Node (better-sqlite3) as the primitives promise', () => {
    expect(node.runtime).toBe('better-sqlite3');
    expect(node.list).toEqual([
      [5, { outcome: 'success', exit_code: 0, attempt: 0, scheduled_at: '2026-01-01T00:04:00Z' }],
      [4, { outcome: 'failure', exit_code: 1, attempt: 0, scheduled_at: '2026-01-01T00:03:00Z' }],
    ]);
    expect(node.max).toBe('2026-01-01T00:04:00Z');
    expect(node.artifactGet).toEqual([expect.any(String), [4, 5]]);
    const views = node.views as Record<string, Record<string, unknown>[]>;
    expect(views.runs!.map((r) => r.scheduled_at)).toEqual([
      '2026-01-01T00:02:00Z',
      '2026-01-01T00:03:00Z',
      '2026-01-01T00:04:00Z',
    ]);
    expect(views.slots).toHaveLength(3);
    expect(views.locks).toEqual([
      expect.objectContaining({ scope: 'g', name: 'l', permit: 0, expires_at: 0 }),
      expect.objectContaining({ scope: 'g', name: 's', permit: 0, holder: 'h#1#c' }),
    ]);
    expect(views.artifacts).toEqual([expect.objectContaining({ name: 'a.bin', size: 2, versions: 1 })]);
  });

  it('answers the same on Node without worker lanes', () => {
    const inline = check(process.execPath, ['--import', 'tsx', CHECK, join(writeTree({}), 's'), 'inline']);
    expect(inline).toEqual(node);
  });

  it('answers the same on Bun (bun:sqlite), inline and in worker lanes', () => {
    for (const mode of ['inline', 'lanes']) {
      const bun = check(runtimeBin('bun'), [CHECK, join(writeTree({}), 's'), mode]);
      expect(bun.runtime).toBe('bun:sqlite');
      expect(withoutRuntime(bun)).toEqual(withoutRuntime(node));
    }
  }, 60_000);

  it('answers the same on Deno (node:sqlite), from a bundle', async () => {
    const dir = writeTree({});
    const bundle = join(dir, 'check.mjs');
    // Bundled as scripts/build.mjs bundles the program: native drivers external.
    await build({
      entryPoints: [CHECK],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: bundle,
      external: ['better-sqlite3', 'bun:sqlite', 'node:sqlite'],
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
      logLevel: 'warning',
    });
    const deno = check(runtimeBin('deno'), ['run', '-A', bundle, join(dir, 's'), 'inline']);
    expect(deno.runtime).toBe('node:sqlite');
    expect(withoutRuntime(deno)).toEqual(withoutRuntime(node));
  }, 60_000);
});
