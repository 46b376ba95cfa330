// Issue 21: a daemon without an `mcp:` block pays nothing for MCP. The built daemon runs with a
// CommonJS hook (NODE_OPTIONS=--require) that writes down every package Module._load is asked for;
// after the REST routes that share payload code with the MCP tools have answered, neither zod nor
// the MCP SDK may have been loaded. Nor with `mcp.enabled` after a tools/list and a tools/call
// (issue 30): the MCP server dispatches without the SDK and serves generated JSON Schemas.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type McpDaemon, startMcpDaemon } from '../helpers/mcp.ts';
import { writeTree } from '../helpers/tmp.ts';

// Records the bare package name (`zod`, `@modelcontextprotocol/sdk`) of every non-relative,
// non-builtin request, one per line, as it happens (the daemon is stopped by a signal).
const HOOK = `
const Module = require('node:module');
const fs = require('node:fs');
const out = process.env.LAZY_LOAD_LOG;
const seen = new Set();
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (typeof request === 'string' && !request.startsWith('.') && !request.startsWith('/') &&
      !request.startsWith('node:') && !Module.isBuiltin(request)) {
    const parts = request.split('/');
    const name = request.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
    if (!seen.has(name)) {
      seen.add(name);
      fs.appendFileSync(out, name + '\\n');
    }
  }
  return load.apply(this, arguments);
};
`;

const STATE = ['state:', '  path: state.db', '  topology: single-node', '  deploymentId: lazy-load'].join(
  '\n',
);

// Records the file name of every ES module the daemon resolves (the bundle, the files beside it).
const ESM_HOOK = "import { register } from 'node:module';\nregister('./esm-resolve.mjs', import.meta.url);\n";
const ESM_RESOLVE = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.startsWith('file:')) appendFileSync(process.env.ESM_LOAD_LOG, r.url.split('/').pop() + '\\n');
  return r;
}
`;

function hooked(): { env: NodeJS.ProcessEnv; loaded: () => string[]; modules: () => string[] } {
  const dir = writeTree(
    {
      'hook.cjs': HOOK,
      'esm-hook.mjs': ESM_HOOK,
      'esm-resolve.mjs': ESM_RESOLVE,
      'loaded.txt': '',
      'esm.txt': '',
    },
    true,
  );
  const log = join(dir, 'loaded.txt');
  const esm = join(dir, 'esm.txt');
  const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return {
    env: {
      NODE_OPTIONS: `--require ${join(dir, 'hook.cjs')} --import ${join(dir, 'esm-hook.mjs')}`,
      LAZY_LOAD_LOG: log,
      ESM_LOAD_LOG: esm,
    },
    loaded: () => lines(log),
    modules: () => lines(esm),
  };
}

const DIST = join(import.meta.dirname, '..', '..', 'dist');
/** The file scripts/build.mjs writes for the module named `name` (e.g. `mcp`: cronstable-mcp-<hash>.mjs). */
function distFile(name: string): string {
  const files = readdirSync(DIST).filter((f) => new RegExp(`^cronstable-${name}-[A-Z0-9]{8}\\.mjs$`).test(f));
  expect(files, `dist/cronstable-${name}-*.mjs`).toHaveLength(1);
  return files[0]!;
}

async function getOk(base: string, path: string): Promise<unknown> {
  const res = await fetch(`${base}${path}`, { headers: { accept: 'application/json' } });
  const text = await res.text();
  expect(res.status, `${path}: ${text}`).toBe(200);
  return JSON.parse(text);
}

describe('lazy loading of zod and the MCP SDK (issue 21)', () => {
  let d: McpDaemon | null = null;
  afterEach(async () => {
    await d?.stop();
    d = null;
  });

  it('a daemon without mcp: serves /jobs, /status, /schedule/preview and /state without loading either', async () => {
    const hook = hooked();
    d = await startMcpDaemon({ mcp: [], extra: STATE, env: hook.env });
    const jobs = (await getOk(d.base, '/jobs')) as { name: string }[];
    expect(jobs.map((j) => j.name)).toEqual(['hello', 'nightly']);
    const status = (await getOk(d.base, '/status')) as unknown[];
    expect(status).toHaveLength(2);
    const preview = (await getOk(d.base, '/schedule/preview?expr=*+*+*+*+*')) as { expression: string };
    expect(preview.expression).toBe('* * * * *');
    const state = (await getOk(d.base, '/state')) as Record<string, unknown>;
    expect(state).toBeTypeOf('object');
    const loaded = hook.loaded();
    // The hook works: the daemon's own packages show up.
    expect(loaded).toContain('better-sqlite3');
    expect(loaded).not.toContain('zod');
    expect(loaded).not.toContain('@modelcontextprotocol/sdk');
    // The OpenAPI document still comes out, loading zod on that first request.
    const doc = (await getOk(d.base, '/openapi.json')) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain('/jobs');
    expect(hook.loaded()).toContain('zod');
    expect(hook.loaded()).not.toContain('@modelcontextprotocol/sdk');
    // Issue 23: nor is the MCP server's own code in the bundle, or its file loaded.
    expect(hook.modules()).toContain('cronstable.mjs');
    expect(hook.modules()).not.toContain(distFile('mcp'));
    // Spec 10 §6.3: libsodium (its WebAssembly heap) is loaded by the first seal, never without push:.
    expect(hook.modules()).not.toContain(distFile('libsodium-wrappers'));
    // Nor the dashboard's assets, until the page is asked for; then it is served from their file.
    expect(hook.modules()).not.toContain(distFile('assets'));
    // Nor the mDNS library without `web.bonjour` (spec 10 §6.6).
    expect(hook.modules()).not.toContain(distFile('multicast-dns'));
    // Issue 23: no file it loaded is large. glibc keeps up to twice the largest freed malloc buffer
    // (Node reads a module into one) in every thread's arena: 2 MB each after the 1 MB bundle.
    const files = [...new Set(hook.modules())].filter((f) => existsSync(join(DIST, f)));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files)
      expect(statSync(join(DIST, f)).size, `${f} (scripts/build.mjs, SPLIT)`).toBeLessThan(256 * 1024);
    const page = await fetch(`${d.base}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script>');
    expect(hook.modules()).toContain(distFile('assets'));
  });

  it('with mcp.enabled, tools/list and a tools/call load neither (issue 30)', async () => {
    const hook = hooked();
    d = await startMcpDaemon({ mcp: ['enabled: true'], extra: STATE, env: hook.env });
    const list = await d.rpc('tools/list');
    expect(list.result.tools.length).toBeGreaterThan(10);
    const result = await d.call('cron_list_jobs');
    expect(result.isError).not.toBe(true);
    const loaded = hook.loaded();
    // The hook works: the daemon's own packages show up.
    expect(loaded).toContain('better-sqlite3');
    expect(loaded).not.toContain('zod');
    expect(loaded).not.toContain('@modelcontextprotocol/sdk');
    // The tools come from dist/cronstable-mcp-<hash>.mjs, which the daemon loaded for them (issue 23).
    expect(hook.modules()).toContain(distFile('mcp'));
    for (const f of readdirSync(DIST).filter((f) => /^cronstable[.-].*mjs$/.test(f) && !/full|mcp/.test(f)))
      expect(readFileSync(join(DIST, f), 'utf8'), f).not.toContain('cron_list_jobs');
    expect(readFileSync(join(DIST, distFile('mcp')), 'utf8')).toContain('cron_list_jobs');
  });

  it("the MCP server shares the daemon's modules: a store error from a tool keeps its status", async () => {
    d = await startMcpDaemon({ mcp: ['enabled: true'], extra: STATE });
    // cron_get_job reads the job set through the web API module the bundle holds (not a copy).
    const result = await d.call('cron_get_job', { name: 'no-such-job' });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/no-such-job/);
  });
});
