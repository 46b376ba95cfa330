// Runs the built `cronstable mcp` bridge as a real process: lines in on stdin, frames out on stdout.
// And a small real HTTP listener that answers POST /mcp as scripted, for the bridge's own rules
// (headers it sends, statuses it maps) that a correct daemon never exercises.
import { spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DAEMON } from './e2e-daemon.ts';

export interface BridgeRun {
  code: number | null;
  /** stdout, one parsed JSON value per line (a line that is not JSON fails the run). */
  frames: unknown[];
  stdout: string;
  stderr: string;
}

/** Feeds `lines` to `cronstable mcp ARGS`, closes stdin, and waits for the exit (killed after `guardMs`). */
export function runBridge(
  args: string[],
  lines: string[],
  opts: {
    env?: NodeJS.ProcessEnv;
    guardMs?: number /** stdout is prose (--help), not frames */;
    text?: boolean;
  } = {},
): Promise<BridgeRun> {
  const env = { ...process.env, ...opts.env };
  // The ambient token must not leak into a test that means "no token".
  if (!opts.env || !('CRONSTABLE_WEB_TOKEN' in opts.env)) delete env.CRONSTABLE_WEB_TOKEN;
  const child = spawn(process.execPath, [DAEMON, 'mcp', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  child.stdin.end(lines.map((l) => `${l}\n`).join(''));
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the bridge did not exit within ${opts.guardMs ?? 20_000} ms; stderr:\n${stderr}`));
    }, opts.guardMs ?? 20_000);
    child.once('exit', (code) => {
      clearTimeout(guard);
      // 'exit' can come before the pipes are drained.
      setImmediate(() => {
        try {
          const frames = opts.text
            ? []
            : stdout
                .split('\n')
                .filter((l) => l !== '')
                .map((l) => JSON.parse(l) as unknown);
          resolve({ code, frames, stdout, stderr });
        } catch (e) {
          reject(new Error(`stdout carried a line that is not JSON: ${(e as Error).message}\n${stdout}`));
        }
      });
    });
  });
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ScriptedReply {
  status: number;
  body?: string;
}

export interface ScriptedListener {
  base: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/** A loopback HTTP server whose every request is recorded and answered by `answer`. */
export async function scriptedListener(
  answer: (req: SeenRequest) => ScriptedReply,
): Promise<ScriptedListener> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const r: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(r);
      const reply = answer(r);
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The JSON-RPC result a spec-conforming endpoint gives `ping`/`initialize`/`tools/list`. */
export function specAnswer(
  req: SeenRequest,
  tools: unknown[] = [{ name: 'cron_get_status' }],
): ScriptedReply {
  const msg = JSON.parse(req.body) as {
    id?: unknown;
    method?: string;
    params?: { protocolVersion?: string };
  };
  if (!('id' in msg) || !('method' in msg)) return { status: 202 };
  const result =
    msg.method === 'initialize'
      ? {
          protocolVersion: msg.params?.protocolVersion === '2025-06-18' ? '2025-06-18' : '2025-11-25',
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'cronstable', title: 'cronstable', version: '0' },
          instructions: 'test',
        }
      : msg.method === 'tools/list'
        ? { tools }
        : {};
  return { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }) };
}
