// Pauses through the shared store (spec 10 §1.4): each change is appended to the stream
// `paused/<job>` (newest record wins, 8 kept), and every node adopts the newest record of each
// stream on its refresh. A write the store refuses is held and re-sent (the last intent wins), and a
// refresh never overrides a job whose own write is still pending. The fire-time check never waits on
// any of this: it reads the book in memory.
import type { Json, Store } from '../../store/types.ts';
import type { Clock } from '../../util/clock.ts';
import { errorText } from '../../util/errors.ts';
import type { Logger } from '../../util/log.ts';
import { iso, type Pause, type PauseBook, type PauseChannel, type PauseSink } from '../pauses.ts';

const PREFIX = 'paused/';
const KEEP = 8;

export class PauseSync implements PauseSink {
  /** Records the store has not accepted yet, by job. */
  private readonly pending = new Map<string, Json>();
  /** Writes the store refused so far (each re-send counts once). */
  droppedWrites = 0;

  constructor(
    private readonly store: Store,
    private readonly book: PauseBook,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly host: string,
  ) {}

  paused(job: string, p: Pause): void {
    this.write(job, {
      kind: 'paused',
      since: iso(p.sinceMs),
      until: iso(p.untilMs),
      note: p.note,
      by: p.by,
      channel: p.channel,
      at: iso(this.clock.now()),
      host: this.host,
    });
  }

  resumed(job: string, by: string, channel: PauseChannel): void {
    this.write(job, { kind: 'resumed', by, channel, at: iso(this.clock.now()), host: this.host });
  }

  private write(job: string, record: Json): void {
    this.pending.set(job, record);
    void this.flush(job);
  }

  private async flush(job: string): Promise<void> {
    const record = this.pending.get(job);
    if (record === undefined) return;
    try {
      await this.store.append(PREFIX + job, record, { keep: KEEP });
      if (this.pending.get(job) === record) this.pending.delete(job);
    } catch (e) {
      this.droppedWrites++;
      this.log.warning(`state: could not record the pause of job ${job} (re-sent later): ${errorText(e)}`);
    }
  }

  /** Re-sends held writes, then adopts the newest record of every job's stream. */
  async refresh(jobs: readonly string[]): Promise<void> {
    for (const job of [...this.pending.keys()]) await this.flush(job);
    let newest: Map<string, Pause | null>;
    try {
      newest = await this.read(jobs);
    } catch (e) {
      this.log.warning(
        `state: cannot refresh pause state (keeping the last known in-memory state): ${errorText(e)}`,
      );
      return;
    }
    for (const job of jobs) if (!this.pending.has(job)) this.book.adopt(job, newest.get(job) ?? null);
  }

  private async read(jobs: readonly string[]): Promise<Map<string, Pause | null>> {
    const wanted = new Set(jobs);
    const out = new Map<string, Pause | null>();
    for (const s of await this.store.streams(PREFIX)) {
      const job = s.stream.slice(PREFIX.length);
      if (!wanted.has(job)) continue;
      const rec = await this.store.newest(s.stream);
      out.set(job, rec ? pauseOf(rec.data) : null);
    }
    return out;
  }
}

/** A stream record as a pause, or null (a resume, or a record this build cannot read). */
export function pauseOf(data: Json): Pause | null {
  if (data === null || typeof data !== 'object' || Array.isArray(data) || data.kind !== 'paused') return null;
  const sinceMs = Date.parse(String(data.since));
  const untilMs = Date.parse(String(data.until));
  if (!Number.isFinite(sinceMs) || !Number.isFinite(untilMs)) return null;
  return {
    sinceMs,
    untilMs,
    note: typeof data.note === 'string' ? data.note : '',
    by: typeof data.by === 'string' ? data.by : 'api',
    channel: data.channel === 'mcp' ? 'mcp' : 'api',
  };
}
