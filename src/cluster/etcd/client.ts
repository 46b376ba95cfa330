// The etcd calls of spec 05 §9 over the v3 JSON gateway. No etcd client library: the gateway has
// been stable since etcd 3.4, the spec fixes the exact seven calls we make, and the alternative
// (`etcd3`) pulls in grpc-js and protobuf for them; one less dependency to keep patched.
// Endpoints are tried in order from the round's starting one (rotated each round, so a dead first
// endpoint costs one timeout per round at most, not every call).
import { errorText } from '../../util/errors.ts';
import { type JsonResponse, type JsonTransport, TransportError } from '../json-transport.ts';
import {
  type CampaignResult,
  campaignBody,
  casPutBody,
  type EtcdKv,
  gatewayError,
  grantBody,
  rangeBody,
  readCampaign,
  readGrant,
  readKeepAlive,
  readRange,
  readTxnSucceeded,
} from './wire.ts';

export class EtcdError extends Error {
  constructor(
    message: string,
    /** True when the store answered (a definite refusal), false when it could not be reached. */
    readonly answered: boolean,
  ) {
    super(message);
    this.name = 'EtcdError';
  }
}

export interface EtcdCredentials {
  username: string;
  password: string;
}

export class EtcdClient {
  private start = 0;
  private token: string | null = null;
  /** How many times we authenticated (first login plus every re-login after a 401). */
  authentications = 0;
  /** Monotonic instant (ms) the current round must end by; calls get no more than what is left. */
  roundDeadline: number | null = null;

  constructor(
    private readonly transport: JsonTransport,
    private readonly endpoints: readonly string[],
    private readonly credentials: EtcdCredentials | null,
    /** Per-POST timeout in ms; the backend narrows it when the granted TTL shrinks the round. */
    public timeoutMs: number,
    private readonly monotonic: () => number = () => performance.now(),
  ) {
    if (endpoints.length === 0) throw new Error('etcd: no endpoints');
  }

  /** Moves the first endpoint tried on to the next one (called once per round). */
  rotate(): void {
    this.start = (this.start + 1) % this.endpoints.length;
  }

  /** The endpoint the next call tries first. */
  get endpoint(): string {
    return this.endpoints[this.start]!;
  }

  private async postAny(path: string, body: unknown, auth: boolean): Promise<JsonResponse> {
    let last: Error | null = null;
    for (let i = 0; i < this.endpoints.length; i++) {
      const idx = (this.start + i) % this.endpoints.length;
      const base = this.endpoints[idx]!.replace(/\/+$/, '');
      const headers: Record<string, string> = {};
      if (auth && this.token) headers.authorization = this.token;
      const left = this.roundDeadline === null ? Infinity : this.roundDeadline - this.monotonic();
      if (left <= 0) break;
      try {
        const res = await this.transport.request({
          method: 'POST',
          url: `${base}${path}`,
          body,
          headers,
          timeoutMs: Math.min(this.timeoutMs, left),
        });
        // An answering endpoint stays first for the rest of the round.
        this.start = idx;
        return res;
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
        last = e;
      }
    }
    throw new EtcdError(`etcd unreachable: ${last ? errorText(last) : 'the round deadline passed'}`, false);
  }

  private async authenticate(): Promise<void> {
    if (!this.credentials) return;
    const res = await this.postAny(
      '/v3/auth/authenticate',
      { name: this.credentials.username, password: this.credentials.password },
      false,
    );
    const token = (res.body as { token?: unknown } | null)?.token;
    if (res.status !== 200 || typeof token !== 'string' || token === '')
      throw new EtcdError(
        `etcd authenticate: HTTP ${res.status} ${gatewayError(res.body) ?? res.text}`.trim(),
        true,
      );
    this.token = token;
    this.authentications++;
  }

  /** One call; with auth on, authenticates first if needed and once more on a 401. */
  private async post(path: string, body: unknown): Promise<unknown> {
    if (this.credentials && !this.token) await this.authenticate();
    let res = await this.postAny(path, body, true);
    if (res.status === 401 && this.credentials) {
      this.token = null;
      await this.authenticate();
      res = await this.postAny(path, body, true);
    }
    if (res.status !== 200)
      throw new EtcdError(
        `etcd ${path}: HTTP ${res.status} ${gatewayError(res.body) ?? res.text}`.trim(),
        true,
      );
    return res.body;
  }

  async grant(ttl: number): Promise<{ id: string; ttl: number }> {
    const g = readGrant(await this.post('/v3/lease/grant', grantBody(ttl)));
    if (!g) throw new EtcdError('etcd lease grant: no lease in the answer', true);
    return g;
  }

  /** The lease's remaining TTL; 0 means the lease is gone. */
  async keepAlive(id: string): Promise<number> {
    return readKeepAlive(await this.post('/v3/lease/keepalive', { ID: id }));
  }

  async revoke(id: string): Promise<void> {
    await this.post('/v3/lease/revoke', { ID: id });
  }

  async campaign(key: string, me: string, leaseId: string): Promise<CampaignResult> {
    const r = readCampaign(await this.post('/v3/kv/txn', campaignBody(key, me, leaseId)), me, leaseId);
    if (!r) throw new EtcdError('etcd campaign: unreadable txn answer', true);
    return r;
  }

  async get(key: string): Promise<EtcdKv | null> {
    const r = readRange(await this.post('/v3/kv/range', rangeBody(key)));
    if (!r) throw new EtcdError('etcd range: unreadable answer', true);
    return r.kv;
  }

  /** Writes `value` if the key's mod revision is still `modRevision`; false when it moved. */
  async putIfUnchanged(key: string, value: string, modRevision: string): Promise<boolean> {
    const ok = readTxnSucceeded(await this.post('/v3/kv/txn', casPutBody(key, value, modRevision)));
    if (ok === null) throw new EtcdError('etcd txn: unreadable answer', true);
    return ok;
  }
}
