// Scoped tokens and access control (spec 10 §2) on a real daemon: Setup T of spec 10 §8, the
// vectors that belong to §2, each test named after its number.

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stopChild } from '../helpers/child.ts';
import { DAEMON } from '../helpers/e2e-daemon.ts';
import { jsonOrNull } from '../helpers/json-or-null.ts';
import { type McpDaemon, readWriteMcp, startMcpDaemon, suiteMcpDaemon } from '../helpers/mcp.ts';
import { scopedTokenLines } from '../helpers/scoped-tokens.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';
import { baseEnv, cli } from './fixtures/jobcli-kit.ts';

const TOKEN_DIR = writeTree({ 'approver.token': 'filetok\n' }, true);
const F = join(TOKEN_DIR, 'approver.token');

const JOBS_T = [
  '  - name: tick',
  '    command: "echo hi"',
  '    schedule: "* * * * *"',
  '  - name: slow',
  '    command: "sleep 30"',
  '    schedule: "0 0 1 1 *"',
  '  - name: off',
  '    command: "true"',
  '    schedule: "0 0 1 1 *"',
  '    enabled: false',
].join('\n');

/** Setup T's `web:` lines besides listen and authToken. */
const TOKENS_T = scopedTokenLines(F);

async function req(d: McpDaemon, method: string, path: string, token?: string) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const res = await fetch(`${d.base}${path}`, { method, headers });
  const text = await res.text();
  return { status: res.status, json: jsonOrNull(text) as Record<string, unknown> | null, text };
}

const ANON_CONTROL =
  "anonymous access to this daemon grants only the 'view' scope; this endpoint requires 'control'; present a bearer token";

describe('spec 10 §2 on Setup T (real daemon)', () => {
  const d = suiteMcpDaemon({
    jobs: JOBS_T,
    token: 'admin',
    web: TOKENS_T,
    mcp: readWriteMcp(['observe', 'act', 'dags']),
  });

  it('logs the token table at start', () => {
    expect(d.daemon.logs()).toContain(
      'web: requiring bearer-token authentication (5 tokens; anonymous requests granted scopes: view)',
    );
  });

  it('v24: /whoami names each credential and its effective scopes', async () => {
    const cases: [string | undefined, string, string[], boolean][] = [
      [undefined, 'anonymous', ['view'], false],
      ['viewtok', 'wall', ['view'], false],
      ['ctltok', 'ci', ['control', 'view'], false],
      ['filetok', 'approver', ['approve', 'view'], false],
      ['admin', 'authToken', ['approve', 'control', 'view'], true],
      ['nolabel', 'web.authTokens[3]', ['view'], false],
    ];
    for (const [token, label, scopes, all] of cases) {
      const r = await req(d, 'GET', '/whoami', token);
      expect(r.status, label).toBe(200);
      expect(r.json).toEqual({
        authenticated: token !== undefined,
        label,
        scopes,
        allScopes: all,
        pairLinkBase: 'https://relay.cronstable.com/pair',
      });
    }
  });

  it('v26: a control route refuses the anonymous grant and tokens without control, naming them', async () => {
    const anon = await req(d, 'POST', '/jobs/tick/pause');
    expect(anon.status).toBe(403);
    expect(anon.json).toEqual({ error: ANON_CONTROL });
    const wall = await req(d, 'POST', '/jobs/tick/pause', 'viewtok');
    expect(wall.status).toBe(403);
    expect(wall.json).toEqual({ error: "token 'wall' lacks the 'control' scope required for this endpoint" });
    const approver = await req(d, 'POST', '/jobs/tick/pause', 'filetok');
    expect(approver.status).toBe(403);
    expect(approver.json).toEqual({
      error: "token 'approver' lacks the 'control' scope required for this endpoint",
    });
    // control passes the auth layer (whatever the route then answers).
    const ci = await req(d, 'POST', '/jobs/ghost/start', 'ctltok');
    expect(ci.status).toBe(404);
  });

  it('v27: the gate decision route needs approve, which control does not imply', async () => {
    const path = '/dags/ghost/runs/rk/tasks/gate/decision';
    const ci = await req(d, 'POST', path, 'ctltok');
    expect(ci.status).toBe(403);
    expect(ci.json).toEqual({ error: "token 'ci' lacks the 'approve' scope required for this endpoint" });
    const approver = await req(d, 'POST', path, 'filetok');
    expect([401, 403]).not.toContain(approver.status);
    expect(approver.status).toBeGreaterThanOrEqual(400);
  });

  it('v28: a wrong bearer and ?token= outside .ics are 401; ?token= on .ics is accepted', async () => {
    const wrong = await req(d, 'GET', '/jobs', 'wrong');
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ error: '401: Unauthorized' });
    const query = await req(d, 'GET', '/jobs?token=viewtok');
    expect(query.status).toBe(401);
    expect(query.json).toEqual({ error: '401: Unauthorized' });
    const ics = await req(d, 'GET', '/calendar.ics?token=viewtok');
    expect(ics.status).toBe(200);
  });

  it('v29: anonymous reads pass, the device registry is never anonymous, unknown POSTs need control', async () => {
    expect((await req(d, 'GET', '/jobs')).status).toBe(200);
    const push = await req(d, 'GET', '/push/devices');
    expect(push.status).toBe(403);
    expect(push.json).toEqual({
      error: "the device registry is not served anonymously; present a bearer token with the 'view' scope",
    });
    expect((await req(d, 'GET', '/nope')).status).toBe(404);
    const post = await req(d, 'POST', '/nope');
    expect(post.status).toBe(403);
    expect(post.json).toEqual({ error: ANON_CONTROL });
    // A [view] token: 404 on GET /nope, 403 on POST /nope (spec 10 §2.2).
    expect((await req(d, 'GET', '/nope', 'viewtok')).status).toBe(404);
    expect((await req(d, 'POST', '/nope', 'viewtok')).status).toBe(403);
  });

  it('v23: cron_decide_gate needs approve in the presented token, checked before confirm', async () => {
    const call = async (token: string) => {
      const r = await d.post(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'cron_decide_gate',
            arguments: { dag: 'ghost', run_key: 'rk', taskkey: 'gate', decision: 'approve' },
          },
        },
        undefined,
        { token },
      );
      expect(r.status, token).toBe(200);
      return r.json.result as { isError?: boolean; content: { text: string }[] };
    };
    const ci = await call('ctltok');
    expect(ci.isError).toBe(true);
    expect(ci.content[0]!.text).toMatch(/^the presented web token lacks the 'approve' scope /);
    const admin = await call('admin');
    expect(admin.isError).toBe(true);
    expect(admin.content[0]!.text).toContain('confirm=true');
    // /mcp needs control: a [view] token or the anonymous grant never reaches the engine.
    const view = await d.post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, undefined, {
      token: 'viewtok',
    });
    expect(view.status).toBe(403);
    const anon = await d.post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, undefined, { token: null });
    expect(anon.status).toBe(403);
  });
});

describe('spec 10 §2: no token configured', () => {
  const d = suiteMcpDaemon({ jobs: JOBS_T, mcp: [] });

  it('v25: /whoami without tokens holds every scope', async () => {
    const r = await req(d, 'GET', '/whoami');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      authenticated: false,
      label: null,
      scopes: ['approve', 'control', 'view'],
      allScopes: true,
      pairLinkBase: 'https://relay.cronstable.com/pair',
    });
  });
});

function configDir(web: string[]): string {
  const dir = writeTree({ 'keep.txt': '' }, true);
  const lines = [
    'jobs:',
    JOBS_T,
    'web:',
    '  listen:',
    '    - http://127.0.0.1:0',
    ...web.map((l) => `  ${l}`),
    '',
  ];
  writeFileSync(join(dir, 'cronstable.yaml'), lines.join('\n'));
  return dir;
}

describe('spec 10 §2.1 load checks (cronstable -v)', () => {
  it('v30: an anonymous grant without a token, the label anonymous, and a control grant are refused', async () => {
    const noToken = await cli(['-v', '-c', configDir(['anonymousScopes:', '  - view'])], baseEnv());
    expect(noToken.code).not.toBe(0);
    expect(noToken.out + noToken.err).toContain(
      'web.anonymousScopes is set but no web.authToken or web.authTokens entry is configured',
    );
    const reserved = await cli(
      [
        '-v',
        '-c',
        configDir(['authTokens:', '  - label: anonymous', '    scopes:', '      - view', '    value: x']),
      ],
      baseEnv(),
    );
    expect(reserved.code).not.toBe(0);
    expect(reserved.out + reserved.err).toContain("web.authTokens label 'anonymous' is reserved");
    const control = await cli(
      ['-v', '-c', configDir(['authToken:', '    value: a', 'anonymousScopes:', '  - control'])],
      baseEnv(),
    );
    expect(control.code).not.toBe(0);
    expect(control.out + control.err).toContain('anonymousScopes');
  });
});

describe('spec 10 §2.1 start-time checks and §2.6 rotation (real daemons)', () => {
  it('v31: a secret shared by authToken and an authTokens entry keeps the web API down', async () => {
    const web = ['authTokens:', '  - label: dup', '    scopes:', '      - view', '    value: a'];
    const v = await cli(['-v', '-c', configDir(['authToken:', '    value: a', ...web])], baseEnv());
    expect(v.code).toBe(0);
    const child = spawn(process.execPath, [DAEMON, '-c', configDir(['authToken:', '    value: a', ...web])], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await until('the refusal to be logged', 15_000, async () =>
        out.includes('duplicate secrets') ? true : null,
      );
      expect(out).toContain(
        "web token 'dup' resolves to the same secret as 'authToken'; duplicate secrets are refused because requests match tokens by secret, so only one entry's scopes could apply",
      );
      expect(out).not.toContain('web: started listening');
      // The scheduler keeps running: the daemon is still up.
      expect(child.exitCode).toBeNull();
    } finally {
      await stopChild(child);
    }
  });

  it('v32: a rotated token file takes effect on SIGHUP; an emptied one keeps the running table', async () => {
    const dir = writeTree({ 't.token': 'filetok\n' }, true);
    const file = join(dir, 't.token');
    const d = await startMcpDaemon({
      jobs: JOBS_T,
      mcp: [],
      token: 'admin',
      web: ['authTokens:', '  - label: approver', '    scopes:', '      - approve', `    fromFile: ${file}`],
    });
    try {
      expect((await req(d, 'GET', '/whoami', 'filetok')).status).toBe(200);
      writeFileSync(file, 'newfiletok\n');
      d.daemon.child.kill('SIGHUP');
      await until('the rotated token to be accepted', 5000, async () =>
        (await req(d, 'GET', '/whoami', 'newfiletok')).status === 200 ? true : null,
      );
      expect((await req(d, 'GET', '/whoami', 'filetok')).status).toBe(401);
      writeFileSync(file, '');
      d.daemon.child.kill('SIGHUP');
      await until('the unresolvable source to be logged', 5000, async () =>
        d.daemon.logs().includes('a bearer token source is not resolvable') ? true : null,
      );
      expect((await req(d, 'GET', '/whoami', 'newfiletok')).status).toBe(200);
      expect(readFileSync(file, 'utf8')).toBe('');
    } finally {
      await d.stop();
    }
  });
});
