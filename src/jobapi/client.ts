// A tiny client of the job API for the job CLI (spec 03 §7): node:http and node:https only (proxy
// variables are never consulted), 30 s default timeout, JSON or raw-byte bodies. Over https it
// trusts the CA file in CRONSTABLE_STATE_CACERT alone when set (spec 10 §3.5); checks never go off.
import { readFileSync } from 'node:fs';
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { createRequire } from 'node:module';
import { errorText } from '../util/errors.ts';
import { compactJson } from './pyvalue.ts';

export const DEFAULT_TIMEOUT_MS = 30_000;

/** The endpoint could not be reached, or did not answer in time. */
export class JobApiTransportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobApiTransportError';
  }
}

/** The process is not a cronstable job (no endpoint in its environment). */
export class NotInJobError extends Error {
  constructor(variable: string) {
    super(`not running inside a cronstable job: ${variable} is not set`);
    this.name = 'NotInJobError';
  }
}

export interface JobApiResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The raw body. */
  bytes: Buffer;
  /** The parsed body when it is JSON, else undefined. */
  json: unknown;
}

export interface RequestOptions {
  query?: Record<string, string | undefined>;
  /** A JSON body (NaN/Infinity/bigint are sent as Python would send them). */
  json?: unknown;
  /** A raw body (application/octet-stream). */
  body?: Uint8Array;
  /** A JSON body given as text, sent verbatim (exact numbers survive). */
  rawJson?: string;
  timeoutMs?: number;
  /** Aborts the request (rejects with JobApiTransportError 'request aborted'). */
  signal?: AbortSignal;
}

export interface JobApiClientOptions {
  url: string;
  token: string;
  timeoutMs?: number;
  /** The CA bundle an https endpoint's certificate must chain to (PEM); default: the system store. */
  ca?: Buffer;
}

/** OpenSSL's verification failures as Node names them (a handshake the CA cannot vouch for). */
const VERIFY =
  /^(UNABLE_TO_|SELF_SIGNED_|DEPTH_ZERO_|CERT_|ERR_TLS_CERT_ALTNAME_INVALID|ERR_SSL_|HOSTNAME_MISMATCH)/;

/**
 * node:https, and node:tls under it, only for an https endpoint: a job verb is a process of its own
 * and most jobs reach the API over http on loopback, where loading TLS was ~10% of a verb's start.
 */
function loadHttps(): typeof import('node:https') {
  return createRequire(import.meta.url)('node:https') as typeof import('node:https');
}

export class JobApiClient {
  readonly url: URL;
  private readonly token: string;
  private readonly timeoutMs: number;
  private readonly agent: Agent;
  private readonly https: boolean;
  private readonly send: typeof request;

  constructor(opts: JobApiClientOptions) {
    this.url = new URL(opts.url);
    this.token = opts.token;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.https = this.url.protocol === 'https:';
    if (this.https) {
      const https = loadHttps();
      this.agent = new https.Agent({ keepAlive: true, maxSockets: 4, ...(opts.ca ? { ca: opts.ca } : {}) });
      this.send = https.request;
    } else {
      this.agent = new Agent({ keepAlive: true, maxSockets: 4 });
      this.send = request;
    }
  }

  /**
   * From `CRONSTABLE_STATE_URL` / `CRONSTABLE_STATE_TOKEN` (and `CRONSTABLE_STATE_CACERT`); throws
   * NotInJobError, or JobApiTransportError when the CA bundle cannot be read.
   */
  static fromEnv(env: NodeJS.ProcessEnv, timeoutMs?: number): JobApiClient {
    const url = env.CRONSTABLE_STATE_URL;
    if (!url) throw new NotInJobError('CRONSTABLE_STATE_URL');
    const token = env.CRONSTABLE_STATE_TOKEN;
    if (!token) throw new NotInJobError('CRONSTABLE_STATE_TOKEN');
    const caPath = env.CRONSTABLE_STATE_CACERT;
    let ca: Buffer | undefined;
    if (caPath) {
      try {
        ca = readFileSync(caPath);
      } catch (e) {
        throw new JobApiTransportError(
          `cannot load the CA bundle CRONSTABLE_STATE_CACERT points at (${caPath}): ${errorText(e)}`,
        );
      }
    }
    return new JobApiClient({ url, token, timeoutMs, ca });
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  get(path: string, query?: Record<string, string | undefined>, timeoutMs?: number): Promise<JobApiResponse> {
    return this.request('GET', path, { query, timeoutMs });
  }

  post(path: string, json: unknown, timeoutMs?: number): Promise<JobApiResponse> {
    return this.request('POST', path, { json, timeoutMs });
  }

  request(method: 'GET' | 'POST', path: string, opts: RequestOptions = {}): Promise<JobApiResponse> {
    const target = new URL(
      path.replace(/^\/+/, ''),
      this.url.href.endsWith('/') ? this.url : `${this.url.href}/`,
    );
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) target.searchParams.set(k, v);
    let payload: Uint8Array | undefined;
    const headers: Record<string, string | number> = {
      Authorization: `Bearer ${this.token}`,
      Accept: 'application/json, application/octet-stream',
    };
    if (opts.body !== undefined) {
      payload = opts.body;
      headers['Content-Type'] = 'application/octet-stream';
    } else if (opts.rawJson !== undefined) {
      payload = Buffer.from(opts.rawJson, 'utf8');
      headers['Content-Type'] = 'application/json';
    } else if (opts.json !== undefined) {
      payload = Buffer.from(compactJson(opts.json), 'utf8');
      headers['Content-Type'] = 'application/json';
    }
    if (payload !== undefined || method === 'POST') headers['Content-Length'] = payload?.byteLength ?? 0;
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    return new Promise<JobApiResponse>((resolve, reject) => {
      const req = this.send(
        {
          protocol: this.https ? 'https:' : 'http:',
          hostname: target.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: target.port || (this.https ? 443 : 80),
          path: `${target.pathname}${target.search}`,
          method,
          headers,
          agent: this.agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.once('error', (e) =>
            reject(new JobApiTransportError(`reading the reply failed: ${e.message}`)),
          );
          res.once('end', () => {
            clearTimeout(timer);
            const bytes = Buffer.concat(chunks);
            let json: unknown;
            if (/^application\/json/i.test(String(res.headers['content-type'] ?? ''))) {
              try {
                json = JSON.parse(bytes.toString('utf8'));
              } catch {
                json = undefined;
              }
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, json });
          });
        },
      );
      const timer = setTimeout(() => {
        req.destroy(new JobApiTransportError(`no reply within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      const onAbort = () => req.destroy(new JobApiTransportError('request aborted'));
      if (opts.signal?.aborted) onAbort();
      else opts.signal?.addEventListener('abort', onAbort, { once: true });
      req.once('close', () => opts.signal?.removeEventListener('abort', onAbort));
      req.once('error', (e) => {
        clearTimeout(timer);
        const code = (e as NodeJS.ErrnoException).code ?? '';
        reject(
          e instanceof JobApiTransportError
            ? e
            : this.https && VERIFY.test(code)
              ? new JobApiTransportError(
                  `TLS handshake with the cronstable state endpoint at ${this.url.origin} failed: ${e.message} (does CRONSTABLE_STATE_CACERT point at the CA that signed the daemon's certificate?)`,
                )
              : new JobApiTransportError(
                  `cannot reach the state endpoint at ${this.url.origin}: ${e.message}`,
                ),
        );
      });
      req.end(payload);
    });
  }
}

/** A one-line description of a non-2xx reply (JSON `{"error"}`, or the plain body). */
export function describeFailure(res: JobApiResponse): string {
  const json = res.json as { error?: unknown } | undefined;
  if (json && typeof json === 'object' && typeof json.error === 'string') return json.error;
  if (res.status === 401)
    return 'the state endpoint rejected the run token (HTTP 401): the run has ended or the daemon restarted';
  const text = res.bytes.toString('utf8').trim().split('\n')[0]?.slice(0, 200) ?? '';
  return text ? `HTTP ${res.status}: ${text}` : `HTTP ${res.status}`;
}
