// Issue 23: a daemon serving its web API and job API never loads Node's bundled undici (the fetch
// classes stay resident for the life of the process: 3-5 MB on a tour node). The built daemon runs
// with a preload that writes down, from the main thread, the internal modules it has loaded
// (`process.moduleLoadList`); after /jobs, /status, /metrics, /calendar.ics, a log stream and
// a job's job-API call, undici is not among them, nor is nunjucks (the report template engine,
// loaded with the first report that renders one). With `mcp.enabled` (the SDK gets the light
// classes too) and a webhook report (fetch() loads undici, the body template nunjucks), everything
// still answers.

import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type McpDaemon, startMcpDaemon } from '../helpers/mcp.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';
import { readSse } from './web-harness.ts';

const UNDICI = 'NativeModule internal/deps/undici/undici';
const nunjucksIn = (modules: string[]) => modules.some((m) => m.includes('/node_modules/nunjucks/'));

const HOOK = `
const { isMainThread } = require('node:worker_threads');
if (isMainThread) {
  const fs = require('node:fs');
  // Written aside and renamed: a reader must never see the file truncated mid-write.
  const out = process.env.MODULE_LIST_OUT;
  const write = () => {
    const cjs = Object.keys(require.cache).map((file) => 'cjs ' + file);
    fs.writeFileSync(out + '.' + process.pid, process.moduleLoadList.concat(cjs).join('\\n'));
    fs.renameSync(out + '.' + process.pid, out);
  };
  setInterval(write, 100).unref();
}
`;

// A job that calls the job API (kv/set) and writes the answer down.
const JOB = `
import { writeFileSync } from 'node:fs';
const res = await fetch(process.env.CRONSTABLE_STATE_URL + '/v1/kv/set', {
  method: 'POST',
  headers: { authorization: 'Bearer ' + process.env.CRONSTABLE_STATE_TOKEN, 'content-type': 'application/json' },
  body: JSON.stringify({ key: 'k', value: 42 }),
});
writeFileSync(process.argv[2], res.status + ' ' + (await res.text()));
`;

const STATE = ['state:', '  path: state.db', '  topology: single-node', '  deploymentId: no-undici'].join(
  '\n',
);

function fixture(hookUrl?: string) {
  const dir = writeTree({ 'hook.cjs': HOOK, 'job.mjs': JOB, 'modules.txt': '' }, true);
  const jobs = [
    '  - name: talk',
    `    command: ${JSON.stringify(`${process.execPath} ${join(dir, 'job.mjs')} ${join(dir, 'kv.txt')}`)}`,
    '    schedule: "0 0 1 1 *"',
    '  - name: chatty',
    '    command: "echo one; sleep 1; echo two"',
    '    schedule: "0 0 1 1 *"',
    ...(hookUrl
      ? [
          '    onSuccess:',
          '      report:',
          '        webhook:',
          '          url:',
          `            value: ${hookUrl}`,
        ]
      : []),
  ].join('\n');
  return {
    dir,
    jobs,
    env: { NODE_OPTIONS: `--require ${join(dir, 'hook.cjs')}`, MODULE_LIST_OUT: join(dir, 'modules.txt') },
    modules: () => readFileSync(join(dir, 'modules.txt'), 'utf8').split('\n'),
    kv: () => {
      try {
        return readFileSync(join(dir, 'kv.txt'), 'utf8');
      } catch {
        return '';
      }
    },
  };
}

async function ok(base: string, path: string, init?: RequestInit): Promise<string> {
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  expect(res.status, `${path}: ${text}`).toBe(200);
  return text;
}

/** Starts `chatty`, follows its log stream to the end. */
async function streamChatty(base: string): Promise<{ event: string; data: unknown }[]> {
  await ok(base, '/jobs/chatty/start', { method: 'POST' });
  const res = await fetch(`${base}/jobs/chatty/logs`);
  expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  return readSse(res, { timeoutMs: 15_000 });
}

describe('serving without undici (issue 23)', () => {
  let d: McpDaemon | null = null;
  const servers: Server[] = [];
  afterEach(async () => {
    await d?.stop();
    d = null;
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  });

  it('web endpoints, a log stream and a job API call leave undici unloaded', async () => {
    const f = fixture();
    d = await startMcpDaemon({ jobs: f.jobs, mcp: [], extra: STATE, env: f.env });
    expect(JSON.parse(await ok(d.base, '/jobs')).map((j: { name: string }) => j.name)).toEqual([
      'talk',
      'chatty',
    ]);
    await ok(d.base, '/status');
    expect(await ok(d.base, '/metrics')).toContain('# TYPE');
    expect(await ok(d.base, '/calendar.ics')).toContain('BEGIN:VCALENDAR');
    const head = await fetch(`${d.base}/jobs`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const events = await streamChatty(d.base);
    expect(events.at(-1)?.event).toBe('end');
    await ok(d.base, '/jobs/talk/start', { method: 'POST' });
    await until('the job API answer', 15_000, async () => (f.kv() === '' ? null : true));
    expect(f.kv()).toMatch(/^200 \{"ok":true,"updatedAt":/);
    // Let the preload write the list after the last request.
    await new Promise((r) => setTimeout(r, 400));
    const modules = f.modules();
    expect(modules).toContain('NativeModule _http_server'); // the hook works
    expect(modules).not.toContain(UNDICI);
    expect(modules.filter((m) => m.startsWith('cjs ')).length).toBeGreaterThan(0);
    expect(nunjucksIn(modules)).toBe(false);
  }, 60_000);

  it('with mcp.enabled and a webhook report, MCP, the webhook and the web API all work', async () => {
    const hooks: string[] = [];
    const sink = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        hooks.push(`${req.method} ${req.url} ${body}`);
        res.end('ok');
      });
    });
    servers.push(sink);
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    const f = fixture(`http://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`);
    d = await startMcpDaemon({ jobs: f.jobs, mcp: ['enabled: true'], extra: STATE, env: f.env });
    const listed = await d.call('cron_list_jobs');
    expect(listed.isError).not.toBe(true);
    expect(JSON.stringify(listed)).toContain('chatty');
    // A request id the SDK refuses is swapped and echoed (the adapter reads the SDK's Response).
    const reply = await d.post({ jsonrpc: '2.0', id: 1.5, method: 'tools/list' });
    expect(reply.status).toBe(200);
    expect(reply.json.id).toBe(1.5);
    // The SDK runs on the light classes too: MCP alone does not load undici.
    await new Promise((r) => setTimeout(r, 400));
    expect(f.modules()).not.toContain(UNDICI);
    const events = await streamChatty(d.base);
    expect(events.at(-1)?.event).toBe('end');
    await until('the webhook', 15_000, async () => (hooks.length > 0 ? true : null));
    expect(hooks[0]).toMatch(/^POST \/hook /);
    // The webhook's fetch() is the platform's, and loads it.
    await until('undici in the module list', 5000, async () => (f.modules().includes(UNDICI) ? true : null));
    await until('nunjucks in the module list', 5000, async () => (nunjucksIn(f.modules()) ? true : null));
    expect(await ok(d.base, '/metrics')).toContain('# TYPE');
    await ok(d.base, '/jobs/talk/start', { method: 'POST' });
    await until('the job API answer', 15_000, async () => (f.kv() === '' ? null : true));
    expect(f.kv()).toMatch(/^200 \{"ok":true/);
  }, 60_000);
});
