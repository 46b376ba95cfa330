// The TUI's only way to the daemon: its web API (spec 08 §2.1). Bearer token on every request, bounded
// timeouts, path segments percent-encoded with nothing left safe (a `/` in a job name stays one segment).
// Requests go through node:http, not the built-in fetch, which refuses some ports a daemon may use (6000).
import { anyPortFetch } from '../../http/any-port-fetch.ts';
import { type ClientTlsOptions, closedForCertificate, tlsFailure } from '../../http/client-tls.ts';

export class HttpError extends Error {
  constructor(
    readonly status: number | null,
    message: string,
    readonly body: unknown = null,
  ) {
    super(message);
  }
  get unauthorized(): boolean {
    return this.status === 401;
  }
}

/** One path segment, `/` included. */
export const seg = (s: string): string => encodeURIComponent(s);

export interface PostResult {
  status: number;
  body: unknown;
}

const GET_TIMEOUT_MS = 10_000;
const POST_TIMEOUT_MS = 15_000;
const STREAM_CONNECT_MS = 5_000;

function networkError(e: unknown, base: string, presentedCert: boolean): HttpError {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return new HttpError(null, 'timed out');
  // Spec 10 §3.3, done better: a TLS failure says so instead of a bare code.
  const tls = tlsFailure(base, e, presentedCert);
  if (tls?.kind === 'verify')
    return new HttpError(null, `TLS verification failed: ${tls.reason} (pass --cacert, or --insecure)`);
  if (tls?.kind === 'client-certificate') return new HttpError(null, closedForCertificate(base));
  if (tls?.kind === 'other') return new HttpError(null, `TLS handshake failed: ${tls.reason}`);
  const detail = err.cause?.code ?? err.cause?.message ?? err.message;
  return new HttpError(null, String(detail));
}

export class ApiClient {
  token: string | null;

  constructor(
    readonly base: string,
    token: string | null,
    private readonly tls: ClientTlsOptions | null = null,
  ) {
    this.token = token;
  }

  private fetch(path: string, init: Parameters<typeof anyPortFetch>[1]): Promise<Response> {
    return anyPortFetch(this.base + path, { ...init, tls: this.tls });
  }

  private failure(e: unknown): HttpError {
    return networkError(e, this.base, Boolean(this.tls?.cert));
  }

  private headers(accept: string): Record<string, string> {
    const h: Record<string, string> = { accept };
    if (this.token) h.authorization = `Bearer ${this.token}`;
    return h;
  }

  private async get(path: string, accept: string): Promise<Response> {
    let res: Response;
    try {
      res = await this.fetch(path, {
        headers: this.headers(accept),
        signal: AbortSignal.timeout(GET_TIMEOUT_MS),
      });
    } catch (e) {
      throw this.failure(e);
    }
    if (res.status === 401) {
      await res.body?.cancel();
      throw new HttpError(401, 'unauthorized');
    }
    if (res.status >= 400) {
      await res.body?.cancel();
      throw new HttpError(res.status, `HTTP ${res.status}`);
    }
    return res;
  }

  async json<T>(path: string): Promise<T> {
    const res = await this.get(path, 'application/json');
    try {
      return (await res.json()) as T;
    } catch (e) {
      throw this.failure(e);
    }
  }

  async text(path: string): Promise<string> {
    return (await this.get(path, 'text/plain')).text();
  }

  /** A POST: answers with the status and the body (JSON when it parses, else text); throws on no answer. */
  async post(path: string, body?: unknown): Promise<PostResult> {
    let res: Response;
    try {
      const headers = this.headers('application/json');
      if (body !== undefined) headers['content-type'] = 'application/json';
      res = await this.fetch(path, {
        method: 'POST',
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        signal: AbortSignal.timeout(POST_TIMEOUT_MS),
      });
    } catch (e) {
      throw this.failure(e);
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // kept as text
    }
    return { status: res.status, body: parsed };
  }

  /** Opens an SSE stream; `signal` closes it. Resolves once the headers are in (5 s connect limit). */
  async stream(path: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    // The connect limit must not cut the stream later, so it is a timer cleared once the headers are in.
    const ctl = new AbortController();
    const forward = () => ctl.abort(signal.reason);
    signal.addEventListener('abort', forward, { once: true });
    const timer = setTimeout(
      () => ctl.abort(new DOMException('timed out', 'TimeoutError')),
      STREAM_CONNECT_MS,
    );
    let res: Response;
    try {
      res = await this.fetch(path, { headers: this.headers('text/event-stream'), signal: ctl.signal });
    } catch (e) {
      throw this.failure(e);
    } finally {
      clearTimeout(timer);
    }
    if (res.status === 401) throw new HttpError(401, 'unauthorized');
    if (res.status >= 400 || res.body === null) throw new HttpError(res.status, `HTTP ${res.status}`);
    return res.body;
  }
}
