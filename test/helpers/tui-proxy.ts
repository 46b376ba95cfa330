// A recording HTTP proxy on loopback in front of a real daemon: the TUI talks to it, it forwards every request
// unchanged and notes what came in (method, URL, Authorization) and when each exchange ended and who ended it.
// That is "the fixture" of spec 08 §8 for the vectors that ask what the daemon received (T15, T16, T23) or
// whether a log tail's connection was closed (T12), while the daemon behind it stays the real one.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from './until.ts';

export interface ProxiedRequest {
  method: string;
  url: string;
  auth: string | undefined;
  /** epoch ms the exchange ended; null while it is still open (a live SSE tail) */
  closedAt: number | null;
  /** the client hung up before the daemon finished answering */
  clientClosed: boolean;
}

export class RecordingProxy {
  readonly requests: ProxiedRequest[] = [];
  base = '';
  private server: Server | null = null;

  constructor(private readonly target: string) {}

  async start(): Promise<void> {
    const up = new URL(this.target);
    this.server = createServer((req, res) => {
      const rec: ProxiedRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        auth: req.headers.authorization,
        closedAt: null,
        clientClosed: false,
      };
      this.requests.push(rec);
      let answered = false;
      const out = request(
        { host: up.hostname, port: up.port, method: rec.method, path: rec.url, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
          r.on('end', () => {
            answered = true;
          });
        },
      );
      out.on('error', () => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      res.on('close', () => {
        rec.closedAt = Date.now();
        rec.clientClosed = !answered;
        out.destroy();
      });
      req.pipe(out);
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  /** Requests with this method whose URL starts with `prefix`. */
  seen(method: string, prefix: string): ProxiedRequest[] {
    return this.requests.filter((r) => r.method === method && r.url.startsWith(prefix));
  }

  /** Waits for a request to arrive and returns it. */
  waitFor(method: string, prefix: string, timeoutMs = 5000, after = 0): Promise<ProxiedRequest> {
    return until(`${method} ${prefix} at the proxy`, timeoutMs, async () => {
      return this.requests.slice(after).find((r) => r.method === method && r.url.startsWith(prefix)) ?? null;
    });
  }
}
