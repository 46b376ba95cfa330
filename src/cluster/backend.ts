// The lease-backend contract (spec 05 §7) and everything the lease backends share: the round
// loop, start/stop with a graceful release, the failed-round WARNING, leadership logs, the
// @reboot ran-set refresh cadence, and the gate's answers (decide / ownerOf / report), which
// are pure functions of the LeaseState each round feeds. A backend (src/cluster/<kind>/) extends
// LeaseBackend and writes only its talk with its store: connect, one round, release, and the
// store-specific lease block of `/cluster`. test/integration/lease-conformance-<kind>.test.ts runs
// the same behaviour cases against every backend; a new one adds its driver and such a file.
//
// The durability argument every backend keeps: leadership ends on this process's monotonic
// clock (LeaseState's deadline, taken from the instant *before* the write that extended the
// lease), so a stalled holder reads "not leader" before it does any I/O; and its store refuses
// a stale holder's write (a fence per backend, said at each backend's round).
import type { ClusterSection } from '../config/file-schema.ts';
import type { LeaseBackendKind } from '../util/backend-kinds.ts';
import type { TimerHandle } from '../util/clock.ts';
import { errorText } from '../util/errors.ts';
import { gossipKeysAdvisory } from './lease-advisory.ts';
import { type LeaseState, leaseClusterReport } from './lease-state.ts';
import type { ClusterBackend, ClusterHost, ClusterReport, GatedPolicy, Leadership } from './types.ts';

/** The ran-set is re-read this often (and at once on gaining leadership). */
export const RAN_SET_REFRESH_MS = 60_000;
/** A failing round repeats its WARNING at most this often while the message stays the same. */
export const REPEAT_WARNING_MS = 60_000;

export abstract class LeaseBackend implements ClusterBackend {
  private timer: TimerHandle | null = null;
  private inflight: Promise<void> | null = null;
  private starting: Promise<void> | null = null;
  private stopping: Promise<void> | null = null;
  /** Set once stop() began: no round is scheduled after it. */
  protected stopped = false;
  private wasLeader = false;
  private lastRanRefresh = Number.NEGATIVE_INFINITY;
  private lastWarning: { text: string; at: number; repeats: number } | null = null;

  protected constructor(
    readonly kind: LeaseBackendKind,
    protected readonly cluster: ClusterSection,
    protected readonly host: ClusterHost,
    protected readonly state: LeaseState,
  ) {}

  // ---- what each backend writes: its talk with its store ----

  /** Reads credentials, opens the connection, probes the store. No round. Rejects = cannot run. */
  protected abstract connect(): Promise<void>;
  /** One election round against the store; a throw is a failed round (its text is the WARNING). */
  protected abstract round(): Promise<void>;
  /** Milliseconds from the start of one round to the start of the next. */
  protected abstract roundPeriodMs(): number;
  /**
   * After the last round: release what we hold so a survivor takes over on its next round
   * (best effort; the lease expires by itself), then close the connection.
   */
  protected abstract release(): Promise<void>;
  /** The store-specific `lease` block of `/cluster` (spec 05 §8.4, §9, §10). */
  protected abstract leaseBlock(): Record<string, unknown>;
  /** What the ready line names: where the lease lives and how. */
  protected abstract readyDetail(): string;
  /** The election's name in logs (election key, lease name). */
  protected abstract electionLabel(): string;
  abstract rebootRan(job: string): boolean | 'unknown';
  abstract recordRebootRan(job: string): Promise<void>;
  /**
   * Backends whose ran-set is not read by the round itself re-read it here: on gaining
   * leadership (after `invalidateRanSet`) and every RAN_SET_REFRESH_MS. Rejects on no answer.
   */
  protected refreshRanSet?(): Promise<void>;
  /** A new leader must re-read the persisted set before it answers "not ran" (spec 05 §3.3). */
  protected invalidateRanSet?(): void;

  // ---- shared ----

  start(): Promise<void> {
    if (this.starting) return Promise.reject(new Error(`the ${this.kind} backend was already started`));
    this.starting = this.startOnce();
    return this.starting;
  }

  private async startOnce(): Promise<void> {
    const advisory = gossipKeysAdvisory(this.cluster, this.kind);
    if (advisory) this.host.log.warning(advisory);
    await this.connect();
    await this.runRound(false);
    this.host.log.info(`cluster: ${this.kind} election ready at ${this.readyDetail()}`);
    this.schedule(this.roundPeriodMs());
  }

  /** Graceful stop: a stop during start waits for it (one bounded round), then releases. */
  stop(): Promise<void> {
    this.stopping ??= this.stopOnce();
    return this.stopping;
  }

  private async stopOnce(): Promise<void> {
    await this.starting?.catch(() => undefined);
    this.stopped = true;
    if (this.timer) this.host.clock.clearTimer(this.timer);
    this.timer = null;
    await this.inflight;
    const leading = this.wasLeader;
    this.wasLeader = false;
    if (this.starting) {
      await this.release();
      if (leading) this.host.log.info(`cluster: released ${this.electionLabel()}`);
    }
  }

  /** Rounds run every period, counted from one round's start to the next. */
  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = this.host.clock.setTimer(() => {
      this.timer = null;
      const began = this.host.clock.monotonic();
      void this.runRound(true).then(() => {
        this.schedule(Math.max(0, began + this.roundPeriodMs() - this.host.clock.monotonic()));
      });
    }, delayMs);
  }

  private runRound(background: boolean): Promise<void> {
    this.inflight ??= this.roundAndAftermath(background).finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async roundAndAftermath(background: boolean): Promise<void> {
    if (this.stopped) return;
    let failure: string | null = null;
    try {
      await this.round();
    } catch (e) {
      failure = errorText(e);
    }
    if (this.stopped) return;
    this.logRound(failure);
    const leading = this.state.isLeader();
    const gained = leading && !this.wasLeader;
    if (leading !== this.wasLeader) {
      const label = this.electionLabel();
      this.host.log.info(
        leading
          ? `cluster: this node leads ${label} (fence ${this.state.holder()?.fence ?? '?'})`
          : `cluster: this node no longer leads ${label}`,
      );
    }
    this.wasLeader = leading;
    if (!this.refreshRanSet) return;
    if (gained) this.invalidateRanSet?.();
    const now = this.host.clock.monotonic();
    if (!gained && now - this.lastRanRefresh < RAN_SET_REFRESH_MS) return;
    this.lastRanRefresh = now;
    const refresh = this.refreshRanSet().catch((e: unknown) => {
      this.host.log.warning(`cluster: ${this.kind} @reboot ran-set not read: ${errorText(e)}`);
      this.lastRanRefresh = Number.NEGATIVE_INFINITY;
    });
    // The first round waits for it, so a fresh node answers @reboot from the start; later
    // rounds do not hold the lease loop up for it.
    if (!background) await refresh;
  }

  /** One WARNING per distinct failure, repeated at most once a minute with a count. */
  private logRound(failure: string | null): void {
    if (failure === null) {
      if (this.lastWarning) this.host.log.info(`cluster: ${this.kind} election rounds succeed again`);
      this.lastWarning = null;
      return;
    }
    const now = this.host.clock.monotonic();
    const last = this.lastWarning;
    if (last && last.text === failure && now - last.at < REPEAT_WARNING_MS) {
      last.repeats++;
      return;
    }
    const again =
      last && last.text === failure && last.repeats > 0 ? ` (failed ${last.repeats} more times since)` : '';
    this.host.log.warning(`cluster: ${this.kind} election round failed: ${failure}${again}`);
    this.lastWarning = { text: failure, at: now, repeats: 0 };
  }

  decide(name: string, policy: GatedPolicy): Leadership {
    return this.state.decide(name, policy);
  }

  /** Lease backends do not distribute: one holder runs every gated fire. */
  ownerOf(): undefined {
    return undefined;
  }

  report(): ClusterReport {
    return leaseClusterReport(
      this.kind,
      this.host.nodeName,
      this.state,
      this.leaseBlock(),
      Boolean(this.cluster.observability?.listen),
    );
  }
}
