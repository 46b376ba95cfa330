// An MCP test kit: writes a config (jobs + web + mcp blocks), starts the built daemon on a free
// loopback port, and offers both an SDK Client (Streamable HTTP) and a raw `post()` for the exact
// statuses, headers and bodies of spec 07 §2.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { stopChild } from './child.ts';
import { type E2eDaemon, ROOT, startE2eDaemon } from './e2e-daemon.ts';
import { writeTree } from './tmp.ts';

export const ROOT_DIR = ROOT;

/**
 * Runs of `hello` (every minute) that were not its scheduled fire: a run a tool call started
 * begins at once, not at the top of a minute (a scheduled fire may land during any test).
 */
export function offMinuteRuns(runs: readonly { started_at: string | null }[]): string[] {
  return runs.filter((r) => Date.parse(r.started_at ?? '') % 60_000 > 5_000).map((r) => String(r.started_at));
}

/** Setup A's jobs (spec 07 §9): `hello` every minute and a disabled `nightly`. */
export const SETUP_A_JOBS = [
  '  - name: hello',
  '    command: "echo hello"',
  '    schedule: "* * * * *"',
  '  - name: nightly',
  '    command: "echo nightly"',
  '    schedule: "0 3 * * *"',
  '    enabled: false',
].join('\n');

/** An `mcp:` block serving read-write with `toolsets` (the names, e.g. `observe`), then `more` lines. */
export function readWriteMcp(toolsets: readonly string[], ...more: string[]): string[] {
  return ['enabled: true', 'readOnly: false', 'toolsets:', ...toolsets.map((t) => `  - ${t}`), ...more];
}

/** The four toolsets of spec 07 §3. */
export const ALL_TOOLSETS = ['observe', 'act', 'dags', 'state'] as const;

/** Setup B's `mcp:` block (spec 07 §9): read-write, all four toolsets, one origin, small limits. */
export const SETUP_B_MCP = readWriteMcp(
  ALL_TOOLSETS,
  'allowedOrigins:',
  '  - http://ok.example',
  'maxRows: 1',
  'maxBodyBytes: 2000',
);

export interface McpDaemonOptions {
  /** Lines under `mcp:` (indented two spaces), e.g. ['enabled: true', 'readOnly: false']; `{PORT}` = the port. */
  mcp?: string[];
  /** Extra lines under `web:` besides `listen`. */
  web?: string[];
  /** The `jobs:` body; default Setup A. */
  jobs?: string;
  /** Any further top-level YAML (state:, dags:, ...). */
  extra?: string;
  /** Bearer token for web.authToken (also sent by `client()` and `post()` unless told otherwise). */
  token?: string;
  /** Listen on this unix socket path too. */
  socket?: string;
  env?: NodeJS.ProcessEnv;
}

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON-RPC bodies, checked field by field by the tests
export type Json = any;

export interface RawReply {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is empty / not JSON. */
  json: Json;
}

export interface McpDaemon {
  daemon: E2eDaemon;
  dir: string;
  base: string;
  endpoint: string;
  token: string | undefined;
  /** POST /mcp with `body` (an object is JSON-encoded; a string is sent as is). */
  post(
    body: unknown,
    headers?: Record<string, string>,
    init?: { method?: string; token?: string | null },
  ): Promise<RawReply>;
  /** A JSON-RPC request; returns the parsed reply (`result` or `error`). */
  rpc(method: string, params?: unknown, headers?: Record<string, string>): Promise<Json>;
  /** tools/call; returns the `result`. */
  call(name: string, args?: Record<string, unknown>): Promise<Json>;
  /** An SDK client connected over Streamable HTTP (closed by stop()). */
  client(): Promise<Client>;
  stop(): Promise<void>;
}

export const JSON_ACCEPT = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
};

export function mcpConfig(port: number, opts: McpDaemonOptions): string {
  const listen = [`    - http://127.0.0.1:${port}`];
  if (opts.socket) listen.push(`    - unix://${opts.socket}`);
  const web = ['web:', '  listen:', ...listen, ...(opts.web ?? []).map((l) => `  ${l}`)];
  if (opts.token) web.push('  authToken:', `    value: ${opts.token}`);
  const mcp = (opts.mcp ?? ['enabled: true']).map((l) => l.replaceAll('{PORT}', String(port)));
  return [
    'jobs:',
    opts.jobs ?? SETUP_A_JOBS,
    ...web,
    ...(mcp.length > 0 ? ['mcp:', ...mcp.map((l) => `  ${l}`)] : []),
    opts.extra ?? '',
    '',
  ].join('\n');
}

export async function startMcpDaemon(opts: McpDaemonOptions = {}): Promise<McpDaemon> {
  const port = await freePort();
  const dir = writeTree({ 'keep.txt': '' }, true);
  writeFileSync(join(dir, 'cronstable.yaml'), mcpConfig(port, opts));
  const base = `http://127.0.0.1:${port}`;
  const endpoint = `${base}/mcp`;
  const auth = (token: string | null | undefined): Record<string, string> =>
    token ? { authorization: `Bearer ${token}` } : {};
  const daemon = await startE2eDaemon(dir, {
    base,
    env: opts.env,
    ready: async (b) => {
      const r = await fetch(`${b}/version`, { headers: auth(opts.token) }).catch(() => null);
      return r?.ok ?? false;
    },
  });
  const clients: Client[] = [];
  let seq = 0;
  const post: McpDaemon['post'] = async (body, headers = JSON_ACCEPT, init = {}) => {
    const token = init.token === undefined ? opts.token : init.token;
    const res = await fetch(endpoint, {
      method: init.method ?? 'POST',
      headers: { ...auth(token), ...headers },
      body:
        init.method && init.method !== 'POST'
          ? undefined
          : typeof body === 'string'
            ? body
            : JSON.stringify(body),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
  const rpc: McpDaemon['rpc'] = async (method, params, headers) => {
    const r = await post(
      { jsonrpc: '2.0', id: ++seq, method, ...(params === undefined ? {} : { params }) },
      headers,
    );
    if (r.status !== 200) throw new Error(`${method}: HTTP ${r.status} ${r.text}`);
    return r.json;
  };
  return {
    daemon,
    dir,
    base,
    endpoint,
    token: opts.token,
    post,
    rpc,
    async call(name, args) {
      const reply = await rpc('tools/call', { name, ...(args === undefined ? {} : { arguments: args }) });
      if (reply.error) throw new Error(`${name}: ${JSON.stringify(reply.error)}`);
      return reply.result;
    },
    async client() {
      const client = new Client({ name: 'cronstable-test', version: '0' });
      const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
        requestInit: { headers: auth(opts.token) },
      });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async stop() {
      for (const c of clients) await c.close().catch(() => {});
      await stopChild(daemon.child);
    },
  };
}

/**
 * A daemon for the enclosing describe: started in its beforeAll, stopped in its afterAll. The
 * returned object stands for it (use it inside tests and hooks only).
 */
export function suiteMcpDaemon(opts: McpDaemonOptions | (() => McpDaemonOptions) = {}): McpDaemon {
  let real: McpDaemon | null = null;
  beforeAll(async () => {
    real = await startMcpDaemon(typeof opts === 'function' ? opts() : opts);
  });
  afterAll(async () => {
    await real?.stop();
  });
  const it = (): McpDaemon => {
    if (!real) throw new Error('the suite daemon is not running (used outside a test?)');
    return real;
  };
  return {
    get daemon() {
      return it().daemon;
    },
    get dir() {
      return it().dir;
    },
    get base() {
      return it().base;
    },
    get endpoint() {
      return it().endpoint;
    },
    get token() {
      return it().token;
    },
    post: (...a) => it().post(...a),
    rpc: (...a) => it().rpc(...a),
    call: (...a) => it().call(...a),
    client: () => it().client(),
    stop: () => it().stop(),
  };
}
