// `cronstable mcp` (spec 07 §8) as a real process: the built bundle over stdio. Against real daemons
// for vector 25 and the MCP SDK's own stdio client, and against a scripted loopback listener for the
// bridge's own rules that a correct daemon never exercises (status mapping, multi-line bodies, a
// failing tools/list, deadlines).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DAEMON, ROOT } from '../helpers/e2e-daemon.ts';
import { ALL_TOOLSETS, type McpDaemon, readWriteMcp, startMcpDaemon } from '../helpers/mcp.ts';
import { runBridge, type ScriptedListener, scriptedListener, specAnswer } from '../helpers/mcp-bridge.ts';

beforeAll(() => {
  if (!existsSync(DAEMON))
    expect(spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 }).status).toBe(
      0,
    );
});

const ping = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
const initialize = (id: unknown, protocolVersion?: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '0' } },
  });
const NOTIFY = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

describe('against a real daemon (vector 25)', () => {
  const TOKEN = 'bridge-s3cret';
  // A: no token, mcp enabled with the defaults. B: a token, read-write, every toolset.
  let a: McpDaemon;
  let b: McpDaemon;
  beforeAll(async () => {
    [a, b] = await Promise.all([
      startMcpDaemon(),
      startMcpDaemon({
        token: TOKEN,
        mcp: readWriteMcp(ALL_TOOLSETS),
      }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('garbage gets a -32700 frame with id null, then the ping is relayed and answered', async () => {
    const r = await runBridge(['--url', a.base], ['garbage', ping(1)]);
    expect(r.code).toBe(0);
    expect(r.frames).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } },
      { jsonrpc: '2.0', id: 1, result: {} },
    ]);
  });

  it('a batch line gets one -32600 frame; the daemon still answers the next line', async () => {
    const r = await runBridge(['--url', a.base], [`[${ping(1)}]`, ping(2)]);
    expect(r.frames).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batching unsupported' } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  it('an unsupported --protocol-version maps to a -32001 frame carrying the daemon error', async () => {
    const r = await runBridge(['--url', a.base, '--protocol-version', '2024-11-05'], [ping(1)]);
    expect(r.code).toBe(0);
    expect(r.frames).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32001, message: 'MCP endpoint returned HTTP 400: unsupported MCP-Protocol-Version' },
      },
    ]);
  });

  it('relays initialize, the notification and later requests under the negotiated revision', async () => {
    const r = await runBridge(
      ['--url', a.base, '--protocol-version', '2025-03-26'],
      [initialize(1, '2025-06-18'), NOTIFY, ping(2)],
    );
    expect(r.code).toBe(0);
    expect(r.frames).toHaveLength(2);
    expect(r.frames[0]).toMatchObject({ id: 1, result: { protocolVersion: '2025-06-18' } });
    expect(r.frames[1]).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('the MCP SDK client over stdio: initialize, tools/list and a tool call through the bridge', async () => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && k !== 'CRONSTABLE_WEB_TOKEN') env[k] = v;
    env.MY_CRON_TOKEN = TOKEN;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [DAEMON, 'mcp', '--url', b.base, '--token-env', 'MY_CRON_TOKEN'],
      env,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'bridge-test', version: '0' });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()?.name).toBe('cronstable');
      expect(client.getServerCapabilities()?.tools).toBeDefined();
      const { tools } = await client.listTools();
      const direct = await b.rpc('tools/list');
      expect(tools.map((t) => t.name)).toEqual(direct.result.tools.map((t: { name: string }) => t.name));
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['cron_get_status', 'cron_run_job']));
      const res = await client.callTool({
        name: 'cron_validate_schedule',
        arguments: { expression: '*/7 * * * *' },
      });
      expect(res.isError).toBeFalsy();
      expect(res.structuredContent).toMatchObject({ valid: true });
      const bad = await client.callTool({ name: 'cron_get_job', arguments: { name: 'ghost' } });
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('--check vs the read-write daemon with its token: ok, the negotiated revision and the tool count', async () => {
    const listed = (await b.rpc('tools/list')).result.tools.length as number;
    expect(listed).toBeGreaterThanOrEqual(29);
    const r = await runBridge(['--url', b.base, '--check'], [], { env: { CRONSTABLE_WEB_TOKEN: TOKEN } });
    expect(r.stderr).toBe(`mcp check: ok - protocol 2025-11-25, ${listed} tool(s) at ${b.base}/mcp\n`);
    expect(r.stderr).toMatch(
      /^mcp check: ok - protocol 2025-11-25, \d+ tool\(s\) at http:\/\/127\.0\.0\.1:\d+\/mcp\n$/,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('--check without the token: exit 1, initialize failed with HTTP 401', async () => {
    const r = await runBridge(['--url', b.base, '--check'], []);
    expect(r.stderr).toBe('mcp check: initialize failed (MCP endpoint returned HTTP 401)\n');
    expect(r.code).toBe(1);
  });

  it('--check vs a daemon with mcp disabled: exit 1, HTTP 404', async () => {
    const off = await startMcpDaemon({ mcp: ['enabled: false'] });
    try {
      const r = await runBridge(['--url', off.base, '--check'], []);
      expect(r.stderr).toBe('mcp check: initialize failed (MCP endpoint returned HTTP 404)\n');
      expect(r.code).toBe(1);
    } finally {
      await off.stop();
    }
  });

  it('a stopped daemon: a -32001 frame per request, exit 1 since it was never reachable', async () => {
    const gone = await startMcpDaemon();
    await gone.stop();
    const r = await runBridge(['--url', gone.base], [ping(1), ping(2)]);
    expect(r.frames).toHaveLength(2);
    for (const [i, f] of r.frames.entries()) {
      const frame = f as { id: number; error: { code: number; message: string } };
      expect(frame.id).toBe(i + 1);
      expect(frame.error.code).toBe(-32001);
      expect(frame.error.message).toMatch(
        new RegExp(`^cannot reach the cronstable MCP endpoint at ${gone.endpoint}: connect ECONNREFUSED`),
      );
    }
    expect(r.code).toBe(1);
    const check = await runBridge(['--url', gone.base, '--check'], []);
    expect(check.stderr).toMatch(/^mcp check: cannot reach the cronstable MCP endpoint at .*ECONNREFUSED/);
    expect(check.code).toBe(1);
  });
});

let listener: ScriptedListener | null = null;
afterEach(async () => {
  await listener?.close();
  listener = null;
});

describe('relay against a scripted endpoint', () => {
  it('answers garbage with a -32700 frame locally, then relays the next line unchanged', async () => {
    listener = await scriptedListener((r) => specAnswer(r));
    const r = await runBridge(['--url', listener.base], ['garbage', '', '   ', ping(1)]);
    expect(r.code).toBe(0);
    expect(r.frames).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } },
      { jsonrpc: '2.0', id: 1, result: {} },
    ]);
    expect(listener.seen).toHaveLength(1);
    expect(listener.seen[0]!.body).toBe(ping(1));
    expect(listener.seen[0]!.url).toBe('/mcp');
  });

  it('sends the MCP headers, and adopts the protocol version initialize negotiated', async () => {
    listener = await scriptedListener((r) => specAnswer(r));
    const r = await runBridge(
      ['--url', `${listener.base}/`, '--protocol-version', '2025-03-26'],
      [ping('a'), initialize('b', '2025-06-18'), NOTIFY, ping('c')],
    );
    expect(r.code).toBe(0);
    // The notification got a 202 and writes nothing: three requests, three frames.
    expect(r.frames.map((f) => (f as { id: unknown }).id)).toEqual(['a', 'b', 'c']);
    const h = listener.seen.map((s) => s.headers);
    expect(h[0]!['content-type']).toBe('application/json');
    expect(h[0]!.accept).toBe('application/json');
    expect(h[0]!.authorization).toBeUndefined();
    expect(h.map((x) => x['mcp-protocol-version'])).toEqual([
      '2025-03-26',
      '2025-03-26',
      '2025-06-18',
      '2025-06-18',
    ]);
  });

  it('answers a batch line with one -32600 frame (id null) and sends nothing', async () => {
    listener = await scriptedListener((r) => specAnswer(r));
    const r = await runBridge(['--url', listener.base], [`[${ping(1)},${ping(2)}]`, ping(3)]);
    expect(r.frames).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batching unsupported' } },
      { jsonrpc: '2.0', id: 3, result: {} },
    ]);
    expect(listener.seen.map((s) => s.body)).toEqual([ping(3)]);
  });

  it('turns a non-200 answer into a -32001 frame with the request id and the error text', async () => {
    const replies = [
      { status: 400, body: '{"error":"unsupported MCP-Protocol-Version"}' },
      {
        status: 400,
        body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"malformed JSON"}}',
      },
      { status: 401, body: '401: Unauthorized' },
      { status: 500, body: '{"error":""}' },
      { status: 404, body: '{"error":"Not Found"}' },
      { status: 200, body: '' },
      { status: 202, body: '' },
    ];
    let i = 0;
    listener = await scriptedListener(() => replies[i++]!);
    const r = await runBridge(
      ['--url', listener.base],
      replies.map((_, n) => ping(n === 0 ? 'x' : n)),
    );
    expect(r.code).toBe(0);
    const frame = (id: unknown, message: string) => ({
      jsonrpc: '2.0',
      id,
      error: { code: -32001, message },
    });
    expect(r.frames).toEqual([
      frame('x', 'MCP endpoint returned HTTP 400: unsupported MCP-Protocol-Version'),
      frame(1, 'MCP endpoint returned HTTP 400: malformed JSON'),
      frame(2, 'MCP endpoint returned HTTP 401'),
      frame(3, 'MCP endpoint returned HTTP 500'),
      // A detail that only restates the status is left out.
      frame(4, 'MCP endpoint returned HTTP 404'),
      frame(5, 'MCP endpoint returned HTTP 200'),
      frame(6, 'MCP endpoint returned HTTP 202'),
    ]);
  });

  it('writes a multi-line reply body as one frame', async () => {
    listener = await scriptedListener((r) => ({
      status: 200,
      body: JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(r.body).id, result: { a: 1 } }, null, 2),
    }));
    const r = await runBridge(['--url', listener.base], [ping(9)]);
    expect(r.stdout).toBe('{"jsonrpc":"2.0","id":9,"result":{"a":1}}\n');
  });

  it('resolves the token: --token, else --token-env VAR, else CRONSTABLE_WEB_TOKEN; a named VAR has no fallback', async () => {
    listener = await scriptedListener((r) => specAnswer(r));
    const base = ['--url', listener.base];
    const auth = () => listener!.seen.at(-1)!.headers.authorization;
    await runBridge([...base, '--token', 'flag'], [ping(1)], { env: { CRONSTABLE_WEB_TOKEN: 'ambient' } });
    expect(auth()).toBe('Bearer flag');
    await runBridge([...base, '--token-env', 'MY_TOKEN'], [ping(1)], {
      env: { MY_TOKEN: 'named', CRONSTABLE_WEB_TOKEN: 'ambient' },
    });
    expect(auth()).toBe('Bearer named');
    await runBridge(base, [ping(1)], { env: { CRONSTABLE_WEB_TOKEN: 'ambient' } });
    expect(auth()).toBe('Bearer ambient');
    // An empty --token falls through to the environment.
    await runBridge([...base, '--token', ''], [ping(1)], { env: { CRONSTABLE_WEB_TOKEN: 'ambient' } });
    expect(auth()).toBe('Bearer ambient');
    const r = await runBridge([...base, '--token-env', 'UNSET_VAR'], [ping(1)], {
      env: { CRONSTABLE_WEB_TOKEN: 'ambient' },
    });
    expect(auth()).toBeUndefined();
    expect(r.stderr).toContain('UNSET_VAR is unset or empty');
    await runBridge(base, [ping(1)], { env: { CRONSTABLE_WEB_TOKEN: '' } });
    expect(auth()).toBeUndefined();
  });

  it('ignores HTTP proxy variables', async () => {
    listener = await scriptedListener((r) => specAnswer(r));
    const proxy = 'http://127.0.0.1:9'; // nothing listens there: a proxied request would fail
    const r = await runBridge(['--url', listener.base], [ping(1)], {
      env: {
        HTTP_PROXY: proxy,
        http_proxy: proxy,
        HTTPS_PROXY: proxy,
        ALL_PROXY: proxy,
        NODE_USE_ENV_PROXY: '1',
      },
    });
    expect(r.frames).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  it('writes nothing for a client-sent response (it is not a request)', async () => {
    listener = await scriptedListener((r) => specAnswer(r));
    const r = await runBridge(
      ['--url', listener.base],
      [JSON.stringify({ jsonrpc: '2.0', id: 5, result: {} }), ping(6)],
    );
    expect(r.frames).toEqual([{ jsonrpc: '2.0', id: 6, result: {} }]);
    expect(listener.seen).toHaveLength(2);
  });

  it('exits 0 at EOF with no input, and with only answered input', async () => {
    listener = await scriptedListener((r) => specAnswer(r));
    expect((await runBridge(['--url', listener.base], [])).code).toBe(0);
    const r = await runBridge(['--url', listener.base], [NOTIFY]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
  });
});

describe('deadlines', () => {
  let silent: Server | null = null;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await new Promise((r) => (silent ? silent.close(r) : r(null)));
    silent = null;
  });
  /** Accepts connections and never writes a byte (or, with `headersOnly`, stalls after the headers). */
  async function silentServer(headersOnly = false): Promise<string> {
    silent = createServer((s) => {
      sockets.push(s);
      s.on('error', () => {});
      if (headersOnly)
        s.once('data', () =>
          s.write(
            'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"jsonrpc"',
          ),
        );
    });
    await new Promise<void>((r) => silent!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  }

  it('--timeout: a listener that never answers gets a -32001 frame per request, never a hang', async () => {
    const base = await silentServer();
    const r = await runBridge(['--url', base, '--timeout', '0.5'], [ping(1), NOTIFY, ping(2)], {
      guardMs: 15_000,
    });
    const msg = `cannot reach the cronstable MCP endpoint at ${base}/mcp: no answer within 0.5 s`;
    expect(r.frames).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32001, message: msg } },
      { jsonrpc: '2.0', id: 2, error: { code: -32001, message: msg } },
    ]);
    // The notification's failure goes to stderr; the daemon was never reachable: exit 1.
    expect(r.stderr).toContain(`cronstable mcp: ${msg}`);
    expect(r.code).toBe(1);
  });

  it('--timeout covers a body that stalls after the headers', async () => {
    const base = await silentServer(true);
    const r = await runBridge(['--url', base, '--timeout', '0.5'], [ping(1)], { guardMs: 15_000 });
    expect(r.frames).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32001,
          message: `cannot reach the cronstable MCP endpoint at ${base}/mcp: no answer within 0.5 s`,
        },
      },
    ]);
  });

  it('--check against a silent listener fails with exit 1', async () => {
    const base = await silentServer();
    const r = await runBridge(['--url', base, '--timeout', '0.3', '--check'], [], { guardMs: 15_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `mcp check: cannot reach the cronstable MCP endpoint at ${base}/mcp: no answer within 0.3 s\n`,
    );
  });
});

describe('--check against a scripted endpoint', () => {
  it('sends initialize then tools/list with the negotiated version, and counts the tools', async () => {
    listener = await scriptedListener((r) => specAnswer(r, [{ name: 'a' }, { name: 'b' }]));
    const r = await runBridge(['--url', listener.base, '--check', '--protocol-version', '2025-06-18'], []);
    expect(r.stderr).toBe(`mcp check: ok - protocol 2025-06-18, 2 tool(s) at ${listener.base}/mcp\n`);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const [init, list] = listener.seen.map((s) => ({
      ...JSON.parse(s.body),
      pv: s.headers['mcp-protocol-version'],
    }));
    expect(init).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'cronstable-mcp-check', version: '0' },
      },
      pv: '2025-06-18',
    });
    expect(list).toMatchObject({ id: 2, method: 'tools/list', pv: '2025-06-18' });
    // No notifications/initialized.
    expect(listener.seen).toHaveLength(2);
  });

  it('a failing tools/list is a failed check (exit 1), not "0 tool(s)"', async () => {
    listener = await scriptedListener((r) =>
      JSON.parse(r.body).method === 'tools/list'
        ? { status: 500, body: '{"error":"tools unavailable"}' }
        : specAnswer(r),
    );
    const r = await runBridge(['--url', listener.base, '--check'], []);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'mcp check: tools/list failed (MCP endpoint returned HTTP 500: tools unavailable)\n',
    );
  });

  it('a JSON-RPC error from tools/list is a failed check too', async () => {
    listener = await scriptedListener((r) =>
      JSON.parse(r.body).method === 'tools/list'
        ? {
            status: 200,
            body: '{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"internal error"}}',
          }
        : specAnswer(r),
    );
    const r = await runBridge(['--url', listener.base, '--check'], []);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('mcp check: tools/list failed (JSON-RPC error -32603: internal error)\n');
  });
});

describe('usage', () => {
  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['extra'], "unexpected argument 'extra'"],
    [['--url'], "Option '--url <value>' argument missing"],
    [['--url', 'ftp://x'], 'only http:// and https://'],
    [['--url', 'not a url'], "invalid --url 'not a url'"],
    [['--url', 'http://u:p@127.0.0.1:1'], 'not in the URL'],
    [['--timeout', '0'], "invalid --timeout '0'"],
    [['--timeout=-1'], "invalid --timeout '-1'"],
    [['--timeout', 'soon'], "invalid --timeout 'soon'"],
    [['--protocol-version', 'latest'], "invalid --protocol-version 'latest'"],
    [['--token-env', 'NOT-A-NAME'], "invalid --token-env 'NOT-A-NAME'"],
  ])('%j exits 2 with a clear message', async (args, message) => {
    const r = await runBridge(args, []);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(r.stderr).toMatch(/^cronstable mcp: /);
  });

  it('--help prints the usage and exits 0; the top-level usage names the verb', async () => {
    const r = await runBridge(['--help'], [], { text: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: cronstable mcp [--url URL]');
    for (const flag of ['--url', '--token', '--token-env', '--protocol-version', '--timeout', '--check'])
      expect(r.stdout).toContain(flag);
    const top = spawnSync(process.execPath, [DAEMON, '--help'], { encoding: 'utf8' });
    expect(top.stdout).toContain('cronstable mcp [--url URL]');
  });
});
