// The `coordination.k8s.io/v1` Lease as we read and write it, and the round's decision over it
// (spec 05 §10). Pure: the backend does the HTTP. Expiry is judged the way client-go judges it,
// never by comparing the record's timestamps with our wall clock: a record counts as expired once
// *we* have watched it sit unchanged (same holder, same renewTime) for a lease duration on our
// monotonic clock. Wall-clock skew between nodes therefore cannot shorten anyone's lease.

export const API_PATH = '/apis/coordination.k8s.io/v1';
export const RAN_SET_ANNOTATION = 'cronstable.io/reboot-ran';

export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number | null;
}

export interface LeaseObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  spec: LeaseSpec;
}

export function leasePath(namespace: string, name?: string): string {
  const base = `${API_PATH}/namespaces/${encodeURIComponent(namespace)}/leases`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/** MicroTime: `YYYY-MM-DDTHH:MM:SS.ffffffZ` (microseconds, always six digits, UTC). */
export function microTime(epochMs: number): string {
  const iso = new Date(Math.floor(epochMs)).toISOString(); // ...SS.mmmZ
  const micros = Math.min(999, Math.round((epochMs % 1) * 1000))
    .toString()
    .padStart(3, '0');
  return `${iso.slice(0, -1)}${micros}Z`;
}

/** Epoch ms of a MicroTime or RFC 3339 time, or null when unreadable. */
export function parseTime(text: string | null | undefined): number | null {
  if (!text) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}

/** Reads an API answer as a Lease, or null when it is not one. */
export function asLease(body: unknown): LeaseObject | null {
  if (body === null || typeof body !== 'object') return null;
  const o = body as Partial<LeaseObject>;
  if (o.kind !== 'Lease' || !o.metadata || typeof o.metadata.name !== 'string') return null;
  return { ...o, spec: o.spec ?? {} } as LeaseObject;
}

/** What this node remembers of the last record it saw: the client-go "observed record". */
export interface Observation {
  holder: string;
  renewTime: string | null;
  /** The holder's declared duration (ours when it declared none). */
  durationSeconds: number;
  /** Monotonic ms when we first saw this exact (holder, renewTime). */
  since: number;
}

/** Updates the observation with a fresh read; the clock restarts only when the record moved. */
export function observe(
  prev: Observation | null,
  lease: LeaseObject | null,
  nowMono: number,
  ownDuration: number,
): Observation | null {
  if (!lease) return prev;
  const holder = lease.spec.holderIdentity ?? '';
  const renewTime = lease.spec.renewTime ?? null;
  const declared = lease.spec.leaseDurationSeconds;
  const durationSeconds = typeof declared === 'number' && declared > 0 ? declared : ownDuration;
  if (prev && prev.holder === holder && prev.renewTime === renewTime) return { ...prev, durationSeconds };
  return { holder, renewTime, durationSeconds, since: nowMono };
}

export type RoundAction = 'create' | 'renew' | 'acquire' | 'wait';

/**
 * The round table of spec 05 §10, given the object just read (null = 404) and what we remember.
 * `token` is this process's holder token.
 */
export function decideRound(
  lease: LeaseObject | null,
  seen: Observation | null,
  token: string,
  nowMono: number,
): RoundAction {
  const expired = (o: Observation) => nowMono - o.since >= o.durationSeconds * 1000;
  if (!lease) {
    // Deleted under a live holder (an operator's `kubectl delete`)? Its lease still runs by our
    // clock: creating now could make two leaders.
    if (seen && seen.holder !== '' && seen.holder !== token && !expired(seen)) return 'wait';
    return 'create';
  }
  const holder = lease.spec.holderIdentity ?? '';
  if (holder === token) return 'renew';
  if (holder === '') return 'acquire';
  if (seen && seen.holder === holder && expired(seen)) return 'acquire';
  return 'wait';
}

export interface WriteInput {
  token: string;
  durationSeconds: number;
  nowMs: number;
}

/** POST body creating the Lease with us as holder (transitions 0). */
export function createBody(namespace: string, name: string, w: WriteInput): LeaseObject {
  const now = microTime(w.nowMs);
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace },
    spec: {
      holderIdentity: w.token,
      leaseDurationSeconds: w.durationSeconds,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    },
  };
}

/**
 * PUT body renewing (keep acquireTime and transitions) or acquiring (acquireTime now,
 * transitions + 1) the observed object. It carries the observed `resourceVersion`, so the API
 * server refuses it with 409 if anyone wrote in between: that is the whole mutual exclusion.
 */
export function writeBody(observed: LeaseObject, action: 'renew' | 'acquire', w: WriteInput): LeaseObject {
  const now = microTime(w.nowMs);
  const transitions = observed.spec.leaseTransitions ?? 0;
  return {
    ...observed,
    metadata: { ...observed.metadata },
    spec: {
      ...observed.spec,
      holderIdentity: w.token,
      leaseDurationSeconds: w.durationSeconds,
      acquireTime: action === 'acquire' ? now : (observed.spec.acquireTime ?? now),
      renewTime: now,
      leaseTransitions: action === 'acquire' ? transitions + 1 : transitions,
    },
  };
}

/** PUT body giving the lease up: no holder, same transitions, the current resourceVersion. */
export function releaseBody(observed: LeaseObject): LeaseObject {
  return {
    ...observed,
    metadata: { ...observed.metadata },
    spec: { ...observed.spec, holderIdentity: null },
  };
}

export interface RanSet {
  jobSetId: string;
  jobs: string[];
}

export function readRanSetAnnotation(lease: LeaseObject | null): RanSet | null {
  const text = lease?.metadata.annotations?.[RAN_SET_ANNOTATION];
  if (!text) return null;
  try {
    const v = JSON.parse(text) as Partial<RanSet>;
    if (typeof v.jobSetId !== 'string' || !Array.isArray(v.jobs)) return null;
    return { jobSetId: v.jobSetId, jobs: v.jobs.filter((j): j is string => typeof j === 'string') };
  } catch {
    return null;
  }
}

/** The most one-shots a ran-set keeps. */
export const RAN_SET_MAX = 512;

/** PUT body adding `job` to the ran-set annotation (another job set's record is replaced). */
export function withRanJob(
  observed: LeaseObject,
  jobSetId: string,
  job: string,
): { body: LeaseObject; set: RanSet } {
  const current = readRanSetAnnotation(observed);
  const jobs = current && current.jobSetId === jobSetId ? current.jobs.filter((j) => j !== job) : [];
  jobs.push(job);
  const set = { jobSetId, jobs: jobs.slice(-RAN_SET_MAX) };
  return {
    body: {
      ...observed,
      metadata: {
        ...observed.metadata,
        annotations: { ...observed.metadata.annotations, [RAN_SET_ANNOTATION]: JSON.stringify(set) },
      },
    },
    set,
  };
}
