// The three Lease calls of spec 05 §10: GET the object, POST the collection, PUT the object.
// 404 on GET means absent; 409 on a write means another writer got there first this round.
import type { JsonResponse, JsonTransport } from '../json-transport.ts';
import type { ApiCredentials } from './credentials.ts';
import { asLease, type LeaseObject, leasePath } from './lease-object.ts';

export type WriteResult = { ok: true; lease: LeaseObject } | { ok: false; conflict: true };

export class KubernetesError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'KubernetesError';
  }
}

function statusMessage(body: unknown): string {
  const m = (body as { message?: unknown } | null)?.message;
  return typeof m === 'string' ? `: ${m}` : '';
}

export class LeaseClient {
  /** Monotonic ms the current round must end by; each request gets no more than what is left. */
  roundDeadline: number | null = null;

  constructor(
    private readonly transport: JsonTransport,
    private readonly creds: ApiCredentials,
    private readonly name: string,
    private readonly timeoutMs: number,
    private readonly monotonic: () => number = () => performance.now(),
  ) {}

  get namespace(): string {
    return this.creds.namespace;
  }

  private async call(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
    const left = this.roundDeadline === null ? Infinity : this.roundDeadline - this.monotonic();
    if (left <= 0) throw new KubernetesError('the round deadline passed', null);
    const token = await this.creds.token();
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await this.transport.request({
      method,
      url: `${this.creds.baseUrl}${path}`,
      body,
      headers,
      timeoutMs: Math.min(this.timeoutMs, left),
    });
    return res;
  }

  private fail(what: string, res: JsonResponse): never {
    const detail = statusMessage(res.body) || (res.text ? `: ${res.text}` : '');
    throw new KubernetesError(`${what}: HTTP ${res.status}${detail}`, res.status);
  }

  /** The Lease, or null when it does not exist. */
  async get(): Promise<LeaseObject | null> {
    const res = await this.call('GET', leasePath(this.namespace, this.name));
    if (res.status === 404) return null;
    if (res.status !== 200) this.fail(`GET lease ${this.namespace}/${this.name}`, res);
    const lease = asLease(res.body);
    if (!lease) throw new KubernetesError('GET lease: the answer is not a Lease', res.status);
    return lease;
  }

  async create(lease: LeaseObject): Promise<WriteResult> {
    const res = await this.call('POST', leasePath(this.namespace), lease);
    return this.written('POST lease', res);
  }

  async replace(lease: LeaseObject): Promise<WriteResult> {
    const res = await this.call('PUT', leasePath(this.namespace, this.name), lease);
    return this.written('PUT lease', res);
  }

  private written(what: string, res: JsonResponse): WriteResult {
    if (res.status === 409) return { ok: false, conflict: true };
    if (res.status !== 200 && res.status !== 201) this.fail(`${what} ${this.namespace}/${this.name}`, res);
    const lease = asLease(res.body);
    if (!lease) throw new KubernetesError(`${what}: the answer is not a Lease`, res.status);
    return { ok: true, lease };
  }
}
