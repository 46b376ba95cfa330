// The timer queue (DESIGN.md §4 step 1): one timer for the earliest next fire across all jobs,
// a heap keyed by instant; due fires in instant then config order, short stalls replayed,
// long ones resynced.
import { MinHeap, nextFire, occurrences } from '../schedule/index.ts';
import type { Clock, TimerHandle } from '../util/clock.ts';
import type { Logger } from '../util/log.ts';
import { type DstNote, dstNoteOf, dstSkippedInstants } from './dst-notes.ts';
import type { HeapEntry, JobRuntime } from './runtime.ts';

/** A due slot this late (ms) still fires; anything later is a stall or a clock jump. */
export const LATE_FIRE_WINDOW_MS = 10_000;
/** At most this many missed occurrences are replayed after a short stall. */
export const MAX_REPLAY = 100;
/**
 * A resync counts the slots it drops up to this many per job (a suspend of days must not enumerate
 * millions of seconds); beyond it the count is a lower bound.
 */
export const MAX_MISSED_COUNT = 3600;
/** The wake timer never sleeps longer than this, so wall-clock jumps are noticed. */
const MAX_SLEEP_MS = 60_000;

export class FireQueue {
  private readonly heap = new MinHeap<HeapEntry>();
  private timer: TimerHandle | null = null;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly fire: (rt: JobRuntime, scheduledAt: number) => void,
    /** Slots that will never fire (ascending); `atLeast` when the count stopped at MAX_MISSED_COUNT. */
    private readonly missed: (
      rt: JobRuntime,
      instants: number[],
      atLeast: boolean,
      why: string,
    ) => void = () => {},
    /** A fire the job's DST policy shaped (shifted, repeated) or a slot it dropped (issue 15). */
    private readonly dstNote: (rt: JobRuntime, note: DstNote) => void = () => {},
    /** How many fires fall due in this tick, told before the first of them fires. */
    private readonly due: (count: number) => void = () => {},
  ) {}

  /** No more fires (shutdown). */
  close(): void {
    this.closed = true;
    if (this.timer) this.clock.clearTimer(this.timer);
    this.timer = null;
  }

  /** (Re)computes the job's next fire strictly after now; the old heap entry goes stale. */
  seed(rt: JobRuntime): void {
    rt.nextFire = null;
    rt.seedGen++;
    rt.dstSkippedThrough = Number.NEGATIVE_INFINITY;
    const { cron, name, scheduleText } = rt.config;
    if (!cron) {
      rt.gen++;
      return;
    }
    // advance() files any DST note under the generation this seed sets.
    rt.nextFire = this.advance(rt, this.clock.now());
    rt.gen++;
    if (rt.nextFire === null) {
      if (rt.config.enabled)
        this.log.warning(
          `job '${name}': schedule '${scheduleText}' has no future occurrence and will NEVER fire; fix the schedule or disable the job (its status reports never_fires)`,
        );
      return;
    }
    this.heap.push(rt.nextFire, { rt, gen: rt.gen });
  }

  private isStale(e: HeapEntry): boolean {
    return e.rt.removed || e.gen !== (e.note ? e.rt.seedGen : e.rt.gen);
  }

  arm(): void {
    if (this.timer) this.clock.clearTimer(this.timer);
    this.timer = null;
    if (this.closed) return;
    while (this.heap.size > 0 && this.isStale(this.heap.peek()!)) this.heap.pop();
    const at = this.heap.peekKey();
    if (at === undefined) return;
    const delay = Math.min(MAX_SLEEP_MS, Math.max(0, at - this.clock.now()));
    this.timer = this.clock.setTimer(() => this.tick(), delay);
  }

  private tick(): void {
    this.timer = null;
    const now = this.clock.now();
    const due: { rt: JobRuntime; at: number }[] = [];
    while (this.heap.size > 0 && this.heap.peekKey()! <= now) {
      const at = this.heap.peekKey()!;
      const entry = this.heap.pop()!;
      if (this.isStale(entry)) continue;
      if (entry.note) this.dstNote(entry.rt, entry.note);
      else due.push({ rt: entry.rt, at });
    }
    // Same instant: config order (spec 02 §2.2).
    due.sort((a, b) => a.at - b.at || a.rt.index - b.rt.index);
    if (due.length > 0) this.due(due.length);
    for (const { rt, at } of due) this.handleDue(rt, at, now);
    this.arm();
  }

  private handleDue(rt: JobRuntime, at: number, now: number): void {
    const { cron, frame, name, dst } = rt.config;
    if (!cron) return;
    let next: number | null;
    if (now - at <= LATE_FIRE_WINDOW_MS) {
      this.fireNoted(rt, at);
      next = this.advance(rt, at);
      let replayed = 0;
      while (next !== null && next <= now && replayed < MAX_REPLAY) {
        this.fireNoted(rt, next);
        replayed++;
        next = this.advance(rt, next);
      }
      if (next !== null && next <= now) {
        this.dropSlots(rt, next - 1, now, null, `more than ${MAX_REPLAY} slots to replay`);
        next = nextFire(cron, frame, now, dst);
      }
    } else {
      this.log.warning(
        `job '${name}': its fire at ${new Date(at).toISOString()} is ${((now - at) / 1000).toFixed(1)} s late (stall, suspend or clock jump); resyncing`,
      );
      const second = Math.floor(now / 1000) * 1000;
      // A slot of the job's DST policy, not just a matching wall time: a repeated 01:30 the policy
      // does not fire must not fire on a resync either.
      const fires = nextFire(cron, frame, second - 1, dst) === second;
      this.dropSlots(rt, at - 1, now, fires ? second : null, 'stall, suspend or clock jump');
      if (fires) this.fire(rt, second);
      next = nextFire(cron, frame, now, dst);
    }
    rt.gen++;
    rt.nextFire = next;
    if (next !== null) this.heap.push(next, { rt, gen: rt.gen });
  }

  /** A scheduled fire, with its DST note first when the job's policy shaped it. */
  private fireNoted(rt: JobRuntime, at: number): void {
    const { cron, frame, dst } = rt.config;
    const note = cron && frame.kind !== 'utc' ? dstNoteOf(cron, frame, dst, at) : null;
    if (note) this.dstNote(rt, note);
    this.fire(rt, at);
  }

  /**
   * The next fire after `at`. Each slot `dst.skipped: skip` drops gets a heap entry of its own (under
   * the seed's generation: it may lie past the next fire), so it is recorded when its instant passes.
   */
  private advance(rt: JobRuntime, at: number): number | null {
    const { cron, frame, dst } = rt.config;
    if (!cron) return null;
    const next = nextFire(cron, frame, at, dst);
    if (dst.skipped === 'skip' && frame.kind !== 'utc') {
      const from = Math.max(at, rt.dstSkippedThrough);
      for (const note of dstSkippedInstants(cron, frame, dst, from, next ?? at)) {
        this.heap.push(note.at, { rt, gen: rt.seedGen, note });
        rt.dstSkippedThrough = Math.max(rt.dstSkippedThrough, note.at);
      }
    }
    return next;
  }

  /** The slots after `after` up to `until` that will not fire (all but `fired`), handed to `missed`. */
  private dropSlots(rt: JobRuntime, after: number, until: number, fired: number | null, why: string): void {
    const { cron, frame } = rt.config;
    if (!cron) return;
    const found = occurrences(cron, frame, after, {
      untilMs: until,
      limit: MAX_MISSED_COUNT + 1,
      dst: rt.config.dst,
    });
    const atLeast = found.length > MAX_MISSED_COUNT;
    if (atLeast) found.length = MAX_MISSED_COUNT;
    const instants = fired === null ? found : found.filter((t) => t !== fired);
    if (instants.length > 0) this.missed(rt, instants, atLeast, why);
  }
}
