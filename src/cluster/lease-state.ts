// What every lease backend (filesystem, etcd, kubernetes) believes about leadership, and how it
// answers the gate (spec 05 §7). The backend feeds it the outcomes of its store calls; the
// answers are pure functions of those outcomes and two clocks. Leadership ends on the
// monotonic clock by itself: a process that stalls (SIGSTOP, a hung syscall, a paused VM)
// reads as "not leader" the moment it wakes, before it does any I/O. No I/O here.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../util/clock.ts';
import type { BackendKind, ClusterReport, GatedPolicy, Leadership } from './types.ts';

/** Holder recorded when a write lost a race to a winner we cannot name: non-null, so we defer. */
export const UNKNOWN_HOLDER = '<unknown holder>';

/** The holder stops leading this long before its written expiry (spec 05 §8.3 skew budget). */
export const LEADER_MARGIN_MS = 1000;
/** A challenger takes over only once the written expiry is this far in the past by its clock. */
export const CHALLENGER_MARGIN_MS = 1000;

const TOKEN_SUFFIX = /^(.*)#[0-9a-f]{12}$/;

let processSuffix: string | null = null;

/** 12 lowercase hex chars minted once per process: a restarted process is a different holder. */
export function processTokenSuffix(): string {
  processSuffix ??= randomBytes(6).toString('hex');
  return processSuffix;
}

/** `<identity>#<12 hex>`: tells this very process apart from another using the same name. */
export function holderToken(identity: string, suffix: string = processTokenSuffix()): string {
  if (!/^[0-9a-f]{12}$/.test(suffix)) throw new Error(`holder token suffix must be 12 hex chars: ${suffix}`);
  return `${identity}#${suffix}`;
}

/** The name people see: the token without its `#<12 hex>` suffix (other forms unchanged). */
export function displayHolder(holder: string): string {
  const m = TOKEN_SUFFIX.exec(holder);
  return m ? m[1]! : holder;
}

/** Cadence of a lease backend's rounds, in milliseconds (spec 05 §8.3, §9). */
export interface LeaseCadence {
  /** Between rounds: `max(1, ttl/3)` s. */
  renewMs: number;
  /** Bound on one round: `max(1, ttl − renew − 1)` s. */
  roundMs: number;
  /** Bound on one store call: `min(connectTimeout, max(0.5, round/opsPerRound))` s. */
  opMs: number;
}

/**
 * `opsPerRound` is the share of the round one call may take: 4 for the filesystem backend
 * (`max(0.5, round/4)`), 5 for etcd (`round/5`, no floor: pass `floorSeconds` 0).
 */
export function leaseCadence(
  ttlSeconds: number,
  connectTimeoutSeconds: number,
  opsPerRound = 4,
  floorSeconds = 0.5,
): LeaseCadence {
  const renew = Math.max(1, ttlSeconds / 3);
  const round = Math.max(1, ttlSeconds - renew - 1);
  const op = Math.min(connectTimeoutSeconds, Math.max(floorSeconds, round / opsPerRound));
  return { renewMs: renew * 1000, roundMs: round * 1000, opMs: op * 1000 };
}

/** One observed lease: the store's own words (holder token, fence, wall-clock expiry). */
export interface ObservedLease {
  holder: string;
  /** Fence (filesystem), lease transitions (kubernetes), revision or lease id (etcd). */
  fence: number | string | null;
  /** Wall-clock epoch seconds of the written expiry, 0 = released; null when unknown. */
  expiresAt: number | null;
}

export interface LeaseStateOptions {
  clock: Pick<Clock, 'now' | 'monotonic'>;
  /** This process's holder token (`holderToken(identity)`), or etcd's own name. */
  token: string;
  /** Requested ttl, seconds; `setEffectiveTtl` narrows it when the store grants less (etcd). */
  ttlSeconds: number;
}

export type LeaseRole = 'leader' | 'follower' | 'no quorum';

/**
 * The §7 state. Writes: call `sampleWriteStart()` just before the acquiring/renewing write and
 * hand the instant to `won()`; every positive store answer goes through `observed()` (or `won`).
 */
export class LeaseState {
  readonly token: string;
  private readonly clock: Pick<Clock, 'now' | 'monotonic'>;
  private ttlMs: number;
  /** Our own lease as last written (we believe we hold it), or null. */
  private mine: ObservedLease | null = null;
  /** Monotonic instant after which we no longer lead, even without any I/O. */
  private deadline = Number.NEGATIVE_INFINITY;
  /** Monotonic instant of the last positive store observation. */
  private observedAt = Number.NEGATIVE_INFINITY;
  /** Who holds the lease as far as we know (a token, UNKNOWN_HOLDER, or null = nobody/unknown). */
  private current: ObservedLease | null = null;

  constructor(opts: LeaseStateOptions) {
    if (!(opts.ttlSeconds > 0)) throw new Error(`lease ttl must be > 0, got ${opts.ttlSeconds}`);
    this.clock = opts.clock;
    this.token = opts.token;
    this.ttlMs = opts.ttlSeconds * 1000;
  }

  get ttlSeconds(): number {
    return this.ttlMs / 1000;
  }

  /** The store granted less than asked (etcd): deadlines and freshness use the smaller ttl. */
  setEffectiveTtl(ttlSeconds: number): void {
    if (!(ttlSeconds > 0)) throw new Error(`lease ttl must be > 0, got ${ttlSeconds}`);
    this.ttlMs = ttlSeconds * 1000;
  }

  /** The monotonic instant to sample just before an acquiring or renewing write. */
  sampleWriteStart(): number {
    return this.clock.monotonic();
  }

  /** The write sampled at `t0` succeeded: we hold `lease` until `t0 + ttl − 1 s`. */
  won(t0: number, lease: ObservedLease): void {
    this.mine = { ...lease };
    this.current = { ...lease };
    this.deadline = t0 + this.ttlMs - LEADER_MARGIN_MS;
    this.observedAt = Math.max(this.observedAt, t0);
  }

  /** The store answered that our lease is gone (renew refused): we no longer hold it. */
  lost(): void {
    this.mine = null;
    this.deadline = Number.NEGATIVE_INFINITY;
    if (this.current?.holder === this.token) this.current = null;
  }

  /**
   * A positive store answer about who holds the lease: `null` = nobody (absent, released or
   * expired). `at` = the monotonic instant sampled before the read (default: now). Does not
   * make us leader: only a write does.
   */
  observed(lease: ObservedLease | null, at: number = this.clock.monotonic()): void {
    this.current = lease ? { ...lease } : null;
    this.observedAt = Math.max(this.observedAt, at);
    if (this.mine && lease?.holder !== this.token) this.lost();
  }

  /** A write lost its race and the winner is not nameable: defer to someone. */
  observedUnknownWinner(at: number = this.clock.monotonic()): void {
    this.observed({ holder: UNKNOWN_HOLDER, fence: null, expiresAt: null }, at);
  }

  /** Our lease as last written, for the next renew (null when we hold none). */
  held(): ObservedLease | null {
    return this.mine ? { ...this.mine } : null;
  }

  /** Step 2 of the round: the store names our own token (a rebuilt backend): renew it next. */
  adopt(lease: ObservedLease): void {
    if (lease.holder !== this.token) throw new Error('can only adopt a lease held under our own token');
    this.mine = { ...lease };
  }

  /** The holder as last observed (a token or the sentinel), or null. */
  holder(): ObservedLease | null {
    return this.current ? { ...this.current } : null;
  }

  /** Monotonic deadline of our leadership (−∞ when we hold nothing). */
  leaderDeadline(): number {
    return this.deadline;
  }

  isLeader(): boolean {
    return this.mine !== null && this.clock.monotonic() < this.deadline;
  }

  /** A fresh positive store observation within the last ttl (monotonic, no skew margin). */
  isQuorate(): boolean {
    return this.clock.monotonic() - this.observedAt < this.ttlMs;
  }

  /** The holder's display name while quorate, else null. */
  leaderName(): string | null {
    if (!this.isQuorate() || !this.current) return null;
    return displayHolder(this.current.holder);
  }

  /**
   * The `PreferLeader` rule (spec 05 §7): run when not quorate, when the holder is us (also a
   * self-demoted former holder whose deadline passed), or when no holder is known; defer
   * otherwise. Tokens are compared, never display names (two processes may share a name).
   */
  isAvailableLeader(): boolean {
    if (!this.isQuorate()) return true;
    if (this.mine !== null) return true;
    if (!this.current) return true;
    return this.current.holder === this.token;
  }

  role(): LeaseRole {
    if (this.isLeader()) return 'leader';
    return this.isQuorate() ? 'follower' : 'no quorum';
  }

  /**
   * The gate's answer; the same for every name (lease backends do not spread). A denial is
   * transient unless another holder is positively observed (a retry then ends, spec 05 §3.2).
   */
  decide(_name: string, policy: GatedPolicy): Leadership {
    if (policy === 'PreferLeader') {
      if (this.isAvailableLeader()) return { run: true };
      return { run: false, reason: this.followerReason(), transient: false };
    }
    if (this.isLeader()) return { run: true };
    if (!this.isQuorate())
      return { run: false, reason: 'no quorum (lease store unreachable)', transient: true, noQuorum: true };
    if (this.mine !== null)
      return { run: false, reason: 'lease deadline passed before it was renewed', transient: true };
    if (!this.current || this.current.holder === this.token)
      return { run: false, reason: 'no lease holder yet', transient: true };
    return { run: false, reason: this.followerReason(), transient: false };
  }

  private followerReason(): string {
    return `not the leader (leader: ${displayHolder(this.current?.holder ?? UNKNOWN_HOLDER)})`;
  }
}

/** The lease-backend body of `GET /cluster` (spec 05 §12.1): size 1, quorum 1, no peers. */
export function leaseClusterReport(
  backend: BackendKind,
  nodeName: string,
  state: LeaseState,
  lease: Record<string, unknown>,
  fleet = false,
): ClusterReport {
  return {
    backend,
    node_name: nodeName,
    cluster_size: 1,
    quorum: 1,
    elect_leader: true,
    distribution: 'single-leader',
    conflict: false,
    conflict_names: [],
    size_conflict: false,
    conflicting_sizes: [],
    policy_conflict: false,
    conflicting_policies: [],
    quorate: state.isQuorate(),
    leader: state.leaderName(),
    is_leader: state.isLeader(),
    peers: [],
    lease,
    fleet,
  };
}

/** ISO-8601 of a wall-clock expiry in epoch seconds; null when unknown or released. */
export function expiryIso(expiresAt: number | null | undefined): string | null {
  if (expiresAt === null || expiresAt === undefined || !(expiresAt > 0)) return null;
  return new Date(expiresAt * 1000).toISOString();
}
