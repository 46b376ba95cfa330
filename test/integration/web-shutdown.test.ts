// POST /shutdown (spec 10 §4.7, vector 33) on a real daemon with Setup T's tokens (§8): anonymous and
// view-only callers are refused with the §2.3 texts; a control token drains the node as SIGTERM does:
// the acknowledgement comes first, the web API keeps answering while a running job finishes, and the
// daemon exits 0 only after it. The first case of vector 33 (no token at all) is in web-routes.test.ts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpDaemon, readWriteMcp, startMcpDaemon } from '../helpers/mcp.ts';
import { scopedTokenLines } from '../helpers/scoped-tokens.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

const TOKEN_DIR = writeTree({ 'approver.token': 'filetok\n' }, true);
const DONE = join(TOKEN_DIR, 'brief-done');

let d: McpDaemon;

beforeAll(async () => {
  d = await startMcpDaemon({
    token: 'admin',
    jobs: [
      '  - name: tick',
      '    command: "echo hi"',
      '    schedule: "* * * * *"',
      '  - name: brief',
      `    command: "sleep 2 && touch ${DONE}"`,
      '    schedule: "0 0 1 1 *"',
      '  - name: off',
      '    command: "true"',
      '    schedule: "0 0 1 1 *"',
      '    enabled: false',
    ].join('\n'),
    web: scopedTokenLines(join(TOKEN_DIR, 'approver.token')),
    mcp: readWriteMcp(['observe', 'act', 'dags']),
  });
}, 30_000);

afterAll(async () => {
  await d?.stop();
});

async function call(method: string, path: string, token?: string) {
  const res = await fetch(`${d.base}${path}`, {
    method,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('POST /shutdown (spec 10 §4.7) on Setup T', () => {
  it('v33: refuses anonymous and view-only callers with the scope texts', async () => {
    expect(await call('POST', '/shutdown')).toEqual({
      status: 403,
      json: {
        error:
          "anonymous access to this daemon grants only the 'view' scope; this endpoint requires 'control'; present a bearer token",
      },
    });
    expect(await call('POST', '/shutdown', 'viewtok')).toEqual({
      status: 403,
      json: { error: "token 'wall' lacks the 'control' scope required for this endpoint" },
    });
    expect(await call('POST', '/shutdown', 'filetok')).toEqual({
      status: 403,
      json: { error: "token 'approver' lacks the 'control' scope required for this endpoint" },
    });
    expect(await call('POST', '/shutdown', 'wrong')).toMatchObject({ status: 401 });
    expect((await call('GET', '/summary', 'viewtok')).status).toBe(200);
  });

  it('v33: a control token drains the node: 200 at once, the running job finishes, then exit 0', async () => {
    expect(await call('POST', '/jobs/brief/start', 'ctltok')).toEqual({
      status: 200,
      json: { started: 'brief' },
    });
    await until('brief to run', 10_000, async () =>
      (await call('GET', '/jobs/brief', 'ctltok')).json.running ? true : null,
    );
    const exited = new Promise<number | null>((r) => d.daemon.child.once('exit', (code) => r(code)));
    expect(await call('POST', '/shutdown', 'ctltok')).toEqual({ status: 200, json: { shuttingDown: true } });
    expect(d.daemon.logs()).toContain("shutdown requested via POST /shutdown (token 'ci')");
    // The web API answers until the drain ends.
    expect((await call('GET', '/summary', 'viewtok')).json).toMatchObject({ jobs: { running: 1 } });
    expect(existsSync(DONE)).toBe(false);
    expect(await exited).toBe(0);
    expect(existsSync(DONE)).toBe(true);
    expect(d.daemon.logs()).toMatch(/Shutting down: waiting up to \d+ s for 1 running job/);
  });
});
