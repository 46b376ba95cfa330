// Runtime pauses (spec 10 §1): which jobs hold their scheduled fires, until when, on whose word.
// The book is this node's memory, which the fire-time check reads (never the store); a pause is
// always bounded, and one whose `until` has passed reads as absent everywhere before the sweep
// drops it. Persistence and fleet convergence plug in through `PauseSink` (durable/pause-sync.ts).
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/log.ts';

export type PauseChannel = 'api' | 'mcp';

/** One pause window; instants are epoch ms (the API renders them). */
export interface Pause {
  sinceMs: number;
  untilMs: number;
  note: string;
  by: string;
  channel: PauseChannel;
}

/** Where the book's own changes go: the shared store when one is configured. */
export interface PauseSink {
  paused(job: string, pause: Pause): void;
  resumed(job: string, by: string, channel: PauseChannel): void;
}

export const iso = (ms: number): string => new Date(ms).toISOString();

export class PauseBook {
  private readonly pauses = new Map<string, Pause>();
  /** Told of each change, after the book applied it (rebuilds cached bodies). */
  private readonly listeners = new Set<() => void>();
  sink: PauseSink | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** The job's pause in force now, or null (an expired one reads as absent). */
  active(job: string): Pause | null {
    const p = this.pauses.get(job);
    return p && p.untilMs > this.clock.now() ? p : null;
  }

  /** Every pause in force now. */
  allActive(): Map<string, Pause> {
    const out = new Map<string, Pause>();
    for (const name of this.pauses.keys()) {
      const p = this.active(name);
      if (p) out.set(name, p);
    }
    return out;
  }

  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  /** Pauses (or re-pauses, replacing the window) on this node's word; sent to the sink. */
  pause(job: string, p: Pause): Pause {
    this.pauses.set(job, p);
    const note = p.note ? `: ${p.note}` : '';
    this.log.info(`Job ${job} paused until ${iso(p.untilMs)} by ${p.by} (${p.channel})${note}`);
    this.sink?.paused(job, p);
    this.changed();
    return p;
  }

  /** Lifts the job's pause; the sink hears of it even when none is held here (another node's). */
  resume(job: string, by: string, channel: PauseChannel): boolean {
    const lifted = this.active(job) !== null;
    this.pauses.delete(job);
    if (lifted) this.log.info(`Job ${job} resumed by ${by} (${channel})`);
    this.sink?.resumed(job, by, channel);
    this.changed();
    return lifted;
  }

  /** What another node (or the store at boot) says of the job: a pause, or none. */
  adopt(job: string, seen: Pause | null): void {
    // An expired record reads as absent (else every refresh would revive it for the sweep to log).
    const p = seen && seen.untilMs > this.clock.now() ? seen : null;
    const had = this.pauses.get(job);
    if (p === null ? had === undefined : same(had, p)) return;
    if (p === null) this.pauses.delete(job);
    else this.pauses.set(job, p);
    this.changed();
  }

  /** The earliest `until` among the pauses held here (expired ones included), or null. */
  nextExpiryMs(): number | null {
    let next: number | null = null;
    for (const p of this.pauses.values()) if (next === null || p.untilMs < next) next = p.untilMs;
    return next;
  }

  /** Housekeeping: drops expired pauses (logged once each) and those of jobs that are gone. */
  sweep(jobs: ReadonlySet<string>): string[] {
    const now = this.clock.now();
    const expired: string[] = [];
    for (const [name, p] of [...this.pauses]) {
      if (!jobs.has(name)) this.pauses.delete(name);
      else if (p.untilMs <= now) {
        this.pauses.delete(name);
        expired.push(name);
        this.log.info(`Job ${name}: pause expired at ${iso(p.untilMs)}; scheduled runs resume`);
      }
    }
    if (expired.length > 0) this.changed();
    return expired;
  }
}

function same(a: Pause | undefined, b: Pause): boolean {
  return (
    a !== undefined &&
    a.sinceMs === b.sinceMs &&
    a.untilMs === b.untilMs &&
    a.note === b.note &&
    a.by === b.by &&
    a.channel === b.channel
  );
}
