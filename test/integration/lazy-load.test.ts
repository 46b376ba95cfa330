// Issue 21: a daemon without an `mcp:` block pays nothing for MCP. The built daemon runs with a
// CommonJS hook (NODE_OPTIONS=--require) that writes down every package Module._load is asked for;
// after the REST routes that share payload code with the MCP tools have answered, neither zod nor
// the MCP SDK may have been loaded. With `mcp.enabled` and one tools/call, both are.
import { readFileSync } from 'node:fs';
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

function hooked(): { env: NodeJS.ProcessEnv; loaded: () => string[] } {
  const dir = writeTree({ 'hook.cjs': HOOK, 'loaded.txt': '' }, true);
  const log = join(dir, 'loaded.txt');
  return {
    env: { NODE_OPTIONS: `--require ${join(dir, 'hook.cjs')}`, LAZY_LOAD_LOG: log },
    loaded: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
  };
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
  });

  it('with mcp.enabled and one tools/call, both are loaded', async () => {
    const hook = hooked();
    d = await startMcpDaemon({ mcp: ['enabled: true'], env: hook.env });
    const result = await d.call('cron_list_jobs');
    expect(result.isError).not.toBe(true);
    const loaded = hook.loaded();
    expect(loaded).toContain('zod');
    expect(loaded).toContain('@modelcontextprotocol/sdk');
  });
});
