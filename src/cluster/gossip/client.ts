// The gossip poller's HTTP side (spec 05 §5.1, §5.2, §14): one keep-alive agent that presents
// our cert and trusts only the cluster CA, with standard hostname verification against the host
// part of `peers[].host`; a total per-request deadline; gzip; a 256 KiB cap after
// decompression; `If-None-Match` conditional polls.
import type { ClientRequest, IncomingMessage } from 'node:http';
import { Agent, type RequestOptions, request } from 'node:https';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { errorText } from '../../util/errors.ts';
import type { NodeStats } from '../types.ts';
import { splitHostPort } from './address.ts';
import { MAX_BODY_BYTES, parseNodeStats, parsePeerBody, type ReceivedBody, storableEtag } from './body.ts';
import type { TlsMaterial } from './server.ts';

export type PollResult =
  | { kind: 'body'; body: ReceivedBody; etag: string | null; stats: NodeStats | null }
  | { kind: 'not-modified'; stats: NodeStats | null }
  | { kind: 'failure'; status: 'untrusted' | 'unreachable'; error: string };

const UNTRUSTED_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'INVALID_CA',
  'HOSTNAME_MISMATCH',
]);

/** Certificate and handshake verification errors are `untrusted`; everything else `unreachable`. */
export function classifyError(err: unknown): 'untrusted' | 'unreachable' {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return 'unreachable';
  if (UNTRUSTED_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('CERT_'))
    return 'untrusted';
  // The other side refused our certificate (a TLS alert), e.g. ERR_SSL_TLSV1_ALERT_UNKNOWN_CA.
  if (code.startsWith('ERR_SSL_') && /ALERT|CERT/.test(code)) return 'untrusted';
  return 'unreachable';
}

class Failure extends Error {
  constructor(
    message: string,
    readonly status: 'untrusted' | 'unreachable' = 'unreachable',
  ) {
    super(message);
  }
}

/** Reads a response body up to the cap, after decompression. */
function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const gzip = /\bgzip\b/i.test(String(res.headers['content-encoding'] ?? ''));
    const stream: Readable = gzip ? res.pipe(createGunzip()) : res;
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        res.destroy();
        stream.destroy();
        reject(new Failure(`oversized /peer body (over ${MAX_BODY_BYTES} bytes)`));
      } else chunks.push(chunk);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.on('error', (err) => reject(new Failure(`bad /peer body: ${errorText(err, { code: true })}`)));
    res.on('error', (err) => reject(err));
  });
}

export class PeerClient {
  private readonly agent: Agent;

  constructor(
    tls: TlsMaterial,
    private readonly timeoutMs: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 4, ca: tls.ca, cert: tls.cert, key: tls.key });
  }

  /**
   * Runs one request within one total deadline; a kept-alive socket the server had just closed
   * gets one retry on a fresh connection, inside the same deadline.
   */
  private exchange<T>(
    host: string,
    opts: RequestOptions,
    body: string | null,
    onResponse: (res: IncomingMessage) => Promise<T>,
  ): Promise<T> {
    const addr = splitHostPort(host);
    if (!addr) return Promise.reject(new Failure(`bad peer address ${host}`));
    return new Promise<T>((resolve, reject) => {
      let current: ClientRequest | null = null;
      let settled = false;
      const finish = (err: unknown, value?: T) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err === null) resolve(value as T);
        else {
          current?.destroy();
          reject(err);
        }
      };
      const timer = setTimeout(
        () => finish(new Failure(`timed out after ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      const attempt = (retry: boolean) => {
        const req = request({
          ...opts,
          host: addr.host,
          port: addr.port,
          agent: this.agent,
          rejectUnauthorized: true,
        });
        current = req;
        req.on('error', (err) => {
          if (retry && !settled && req.reusedSocket && (err as { code?: string }).code === 'ECONNRESET')
            attempt(false);
          else finish(err);
        });
        req.on('response', (res) => {
          onResponse(res).then(
            (v) => finish(null, v),
            (err) => finish(err),
          );
        });
        req.end(body ?? undefined);
      };
      attempt(true);
    });
  }

  /** One `GET /peer`; never rejects. */
  async poll(host: string, etag: string | null): Promise<PollResult> {
    const headers: Record<string, string> = { accept: 'application/json', 'accept-encoding': 'gzip' };
    if (etag !== null) headers['if-none-match'] = etag;
    try {
      return await this.exchange(host, { method: 'GET', path: '/peer', headers }, null, async (res) => {
        const stats = parseNodeStats(res.headers['x-cronstable-node-stats']);
        if (res.statusCode === 304) {
          res.resume();
          return { kind: 'not-modified', stats } as const;
        }
        if (res.statusCode !== 200) {
          res.resume();
          throw new Failure(`HTTP ${res.statusCode} from /peer`);
        }
        const parsed = parsePeerBody(await readBody(res));
        if (parsed instanceof Error) throw new Failure(parsed.message);
        const tag = res.headers.etag;
        return { kind: 'body', body: parsed, etag: storableEtag(tag), stats } as const;
      });
    } catch (err) {
      const status = err instanceof Failure ? err.status : classifyError(err);
      return { kind: 'failure', status, error: errorText(err, { code: true }) };
    }
  }

  /** A best-effort `POST`; resolves to the HTTP status, or null on any failure. */
  async post(host: string, path: string, json: string): Promise<number | null> {
    try {
      return await this.exchange(
        host,
        { method: 'POST', path, headers: { 'content-type': 'application/json' } },
        json,
        async (res) => {
          res.resume();
          return res.statusCode ?? null;
        },
      );
    } catch {
      return null;
    }
  }

  close(): void {
    this.agent.destroy();
  }
}
