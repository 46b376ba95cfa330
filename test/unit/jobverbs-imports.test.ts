// A job verb is a process of its own, started by a job for each call: what its entry loads before
// the one request it makes is its start-up cost (DESIGN.md §12, `npm run bench -- --only cli`). The
// static import graph of the verbs must not reach the store's schema (drizzle-orm) nor TLS, which an
// http endpoint never needs (node:https is required only for an https one, src/jobapi/client.ts).
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** Every file and built-in that `entry` reaches through static imports. */
async function staticGraph(entry: string): Promise<string[]> {
  const r = await build({
    entryPoints: [join(ROOT, entry)],
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
  });
  const inputs: Metafile['inputs'] = r.metafile.inputs;
  const seen = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const imp of inputs[queue.shift()!]?.imports ?? []) {
      if (imp.kind !== 'import-statement' || seen.has(imp.path)) continue;
      seen.add(imp.path);
      queue.push(imp.path);
    }
  }
  return [...seen];
}

describe('what a job verb loads', () => {
  it('reaches neither drizzle-orm nor node:https / node:tls through static imports', async () => {
    const graph = await staticGraph('src/cli/jobverbs.ts');
    expect(graph).toContain('src/jobapi/client.ts');
    expect(graph).toContain('node:http');
    expect(graph.filter((m) => /drizzle-orm|^node:(https|tls)$|src\/store\/schema\.ts/.test(m))).toEqual([]);
  });
});
