// JSON over HTTP(S) for the lease backends (etcd's v3 gateway, the Kubernetes API). One code path
// on node:http / node:https rather than `fetch`: Node's global fetch takes no CA or client
// certificate without importing undici's dispatcher (not a dependency of ours), and both stores
// need exactly that. A request has one total deadline; an expired deadline destroys the socket so
// a black-holed store never holds a round past its bound.
import http from 'node:http';
import https from 'node:https';

export interface TlsFiles {
  /** PEM texts (already read), not paths. */
  ca?: string;
  cert?: string;
  key?: string;
}

export interface JsonRequest {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs: number;
}

export interface JsonResponse {
  status: number;
  /** The parsed body, or null when it was empty or not JSON. */
  body: unknown;
  /** The body's text when it was not JSON (some errors are plain text), at most 300 chars. */
  text: string;
}

/** A response over this size is treated as a failure (a store answers in kilobytes). */
const MAX_BODY = 4 * 1024 * 1024;

export class TransportError extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'network' | 'oversized',
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/** A keep-alive connection pool for one backend; `close()` drops its sockets on stop. */
export class JsonTransport {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  private readonly httpsAgent: https.Agent;

  constructor(tls: TlsFiles = {}) {
    this.httpsAgent = this.makeHttpsAgent(tls);
  }

  private makeHttpsAgent(tls: TlsFiles): https.Agent {
    return new https.Agent({ keepAlive: true, maxSockets: 4, ca: tls.ca, cert: tls.cert, key: tls.key });
  }

  request(req: JsonRequest): Promise<JsonResponse> {
    const url = new URL(req.url);
    const secure = url.protocol === 'https:';
    const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    const send = secure ? https.request : http.request;
    return new Promise<JsonResponse>((resolve, reject) => {
      let settled = false;
      const done = (err: Error | null, res?: JsonResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(res!);
      };
      const r = send(
        url,
        { method: req.method, headers, agent: secure ? this.httpsAgent : this.httpAgent },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_BODY) {
              r.destroy();
              done(
                new TransportError(
                  `${req.method} ${url.pathname}: response over ${MAX_BODY} bytes`,
                  'oversized',
                ),
              );
              return;
            }
            chunks.push(c);
          });
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = null;
            let raw = '';
            if (text.trim() !== '') {
              try {
                body = JSON.parse(text);
              } catch {
                raw = text.trim().slice(0, 300);
              }
            }
            done(null, { status: res.statusCode ?? 0, body, text: raw });
          });
          res.on('error', (e) => done(new TransportError(e.message, 'network')));
        },
      );
      const timer = setTimeout(
        () => {
          r.destroy();
          done(
            new TransportError(
              `${req.method} ${url.host}${url.pathname} timed out after ${req.timeoutMs} ms`,
              'timeout',
            ),
          );
        },
        Math.max(1, req.timeoutMs),
      );
      r.on('error', (e) =>
        done(new TransportError(`${req.method} ${url.host}${url.pathname}: ${e.message}`, 'network')),
      );
      if (payload) r.end(payload);
      else r.end();
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
