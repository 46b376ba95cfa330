// The etcd v3 JSON gateway's request bodies and response readings (spec 05 §9), pure. The gateway
// speaks protobuf-JSON: bytes are base64, int64s are decimal strings, and fields holding their
// zero value are omitted (so a lost lease's keepalive answers without a TTL, and a failed txn
// without `succeeded`). Field names come back in proto (snake_case) form; camelCase is read too.

export function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

export function unb64(text: string): string {
  return Buffer.from(text, 'base64').toString('utf8');
}

function obj(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function field(o: Record<string, unknown> | null, snake: string, camel = snake): unknown {
  if (!o) return undefined;
  return o[snake] ?? o[camel];
}

/** An int64 field as a decimal string, or null when absent or not a number. */
function int64(v: unknown): string | null {
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return v;
  return null;
}

export interface EtcdKv {
  key: string;
  value: string;
  /** The lease id the key is bound to ("0" when none). */
  lease: string;
  createRevision: string;
  modRevision: string;
}

function readKv(v: unknown): EtcdKv | null {
  const o = obj(v);
  if (!o || typeof o.key !== 'string') return null;
  return {
    key: unb64(o.key),
    value: typeof o.value === 'string' ? unb64(o.value) : '',
    lease: int64(o.lease) ?? '0',
    createRevision: int64(field(o, 'create_revision', 'createRevision')) ?? '0',
    modRevision: int64(field(o, 'mod_revision', 'modRevision')) ?? '0',
  };
}

/** The gateway's error text, when a body carries one (`{"error","code","message"}`). */
export function gatewayError(body: unknown): string | null {
  const o = obj(body);
  if (!o) return null;
  const m = o.message ?? o.error;
  return typeof m === 'string' ? m : null;
}

export const grantBody = (ttl: number) => ({ TTL: String(ttl) });

/** `ID` and the TTL the server actually granted (it may be less than asked). */
export function readGrant(body: unknown): { id: string; ttl: number } | null {
  const o = obj(body);
  const id = int64(o?.ID);
  const ttl = Number(int64(o?.TTL));
  if (!id || id === '0' || !(ttl > 0)) return null;
  return { id, ttl };
}

/** The remaining TTL a keepalive reports; 0 when absent (the lease is gone). */
export function readKeepAlive(body: unknown): number {
  const o = obj(body);
  const result = obj(o?.result) ?? o;
  const ttl = Number(int64(result?.TTL) ?? 0);
  return Number.isFinite(ttl) ? ttl : 0;
}

/**
 * The campaign: create the election key bound to my lease only if it has never been created
 * (create_revision 0, i.e. absent), else read who holds it.
 */
export function campaignBody(key: string, value: string, leaseId: string) {
  return {
    compare: [{ key: b64(key), result: 'EQUAL', target: 'CREATE', create_revision: '0' }],
    success: [{ request_put: { key: b64(key), value: b64(value), lease: leaseId } }],
    failure: [{ request_range: { key: b64(key) } }],
  };
}

export interface CampaignResult {
  won: boolean;
  /** The holder's node name (the key's value), or null when the key vanished between calls. */
  holder: string | null;
  holderLease: string | null;
}

/**
 * Fencing by lease id: the election is mine only when my txn created the key or the key that
 * exists is bound to my lease. A stale lease id (revoked, expired) can match neither: an expired
 * lease deletes its key, and a put with it fails on the server.
 */
export function readCampaign(body: unknown, me: string, leaseId: string): CampaignResult | null {
  const o = obj(body);
  if (!o || !obj(o.header)) return null;
  if (o.succeeded === true) return { won: true, holder: me, holderLease: leaseId };
  const responses = Array.isArray(o.responses) ? o.responses : [];
  const range = obj(field(obj(responses[0]), 'response_range', 'responseRange'));
  const kvs = Array.isArray(range?.kvs) ? range.kvs : [];
  const kv = readKv(kvs[0]);
  if (!kv) return { won: false, holder: null, holderLease: null };
  return { won: kv.lease === leaseId, holder: kv.value, holderLease: kv.lease };
}

export const rangeBody = (key: string) => ({ key: b64(key) });

export function readRange(body: unknown): { kv: EtcdKv | null } | null {
  const o = obj(body);
  if (!o || !obj(o.header)) return null;
  const kvs = Array.isArray(o.kvs) ? o.kvs : [];
  return { kv: readKv(kvs[0]) };
}

/** Write `value` at `key` only if its mod revision is still `modRevision` ("0" = still absent). */
export function casPutBody(key: string, value: string, modRevision: string) {
  return {
    compare: [{ key: b64(key), result: 'EQUAL', target: 'MOD', mod_revision: modRevision }],
    success: [{ request_put: { key: b64(key), value: b64(value) } }],
    failure: [],
  };
}

/** Whether a txn's compare held (`succeeded` is omitted when false); null on a foreign body. */
export function readTxnSucceeded(body: unknown): boolean | null {
  const o = obj(body);
  if (!o || !obj(o.header)) return null;
  return o.succeeded === true;
}

/** The `@reboot` ran-set record (spec 05 §3.3, §9), scoped to one job-set id. */
export interface RanSet {
  jobSetId: string;
  jobs: string[];
}

export function parseRanSet(text: string): RanSet | null {
  try {
    const v = obj(JSON.parse(text));
    if (!v || typeof v.jobSetId !== 'string' || !Array.isArray(v.jobs)) return null;
    return { jobSetId: v.jobSetId, jobs: v.jobs.filter((j): j is string => typeof j === 'string') };
  } catch {
    return null;
  }
}

/** The most one-shots a ran-set keeps (the filesystem backend prunes to the same bound). */
export const RAN_SET_MAX = 512;

/** Adds `job` under `jobSetId`; a record of another job set is replaced, not merged. */
export function mergeRanSet(current: RanSet | null, jobSetId: string, job: string): RanSet {
  const jobs = current && current.jobSetId === jobSetId ? current.jobs.filter((j) => j !== job) : [];
  jobs.push(job);
  return { jobSetId, jobs: jobs.slice(-RAN_SET_MAX) };
}
