// A job's live log tail over SSE (spec 08 §2.4): sanitised entries capped at 5000, re-attached after each run
// ends. Every attach replays the whole finished run, so a replay equal to the last run block on screen is held
// aside and dropped instead of stacking the same run twice.
import { decodeLogLine, SseParser } from '../../dashboard/sse.ts';
import { errorText } from '../../util/errors.ts';
import { cleanLogLine } from '../text/sanitize.ts';
import { type ApiClient, HttpError } from './client.ts';

export type EntryKind = 'stdout' | 'stderr' | 'meta' | 'error';

export interface LogEntry {
  kind: EntryKind;
  /** cleaned text: only SGR escapes remain */
  text: string;
  /** wall-clock receipt time, epoch ms */
  at: number;
}

export const TAIL_CAP = 5000;
const BASE_DELAY_MS = 5000;
const MAX_DELAY_MS = 30_000;
const IDLE_LIMIT_MS = 60_000;

export interface TailDeps {
  client: ApiClient;
  now: () => number;
  onChange: () => void;
  cap?: number;
}

export class LogTail {
  readonly entries: LogEntry[] = [];
  /** bumps on every change, for memoised painting */
  version = 0;
  ended = false;
  endReason: string | null = null;
  error: string | null = null;
  /** re-attach when a run ends */
  follow = true;
  private stopped = false;
  private abort: AbortController | null = null;
  private timer: NodeJS.Timeout | null = null;
  private delay = BASE_DELAY_MS;
  /** the previous attach ended cleanly: the next one may be a replay of the same run */
  private afterEnd = false;
  /** the previous attach failed: the next one replays the run from its start */
  private clearOnFirst = false;
  private readonly cap: number;

  constructor(
    readonly path: string,
    private readonly deps: TailDeps,
  ) {
    this.cap = deps.cap ?? TAIL_CAP;
  }

  start(): void {
    void this.attach();
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
    if (this.timer) clearTimeout(this.timer);
  }

  /** Appends one entry, dropping the oldest past the cap. */
  push(kind: EntryKind, text: string): void {
    this.entries.push({ kind, text, at: this.deps.now() });
    if (this.entries.length > this.cap) this.entries.splice(0, this.entries.length - this.cap);
    this.changed();
  }

  private changed(): void {
    this.version++;
    this.deps.onChange();
  }

  /** Start and end of the last run block on screen: entries after the marker before the last one. */
  private lastBlock(): [number, number] {
    let end = this.entries.length;
    while (end > 0 && this.entries[end - 1]!.kind !== 'meta') end--;
    if (end === 0) return [0, 0];
    const markerAt = end - 1;
    let start = markerAt;
    while (start > 0 && this.entries[start - 1]!.kind !== 'meta') start--;
    return [start, markerAt];
  }

  private async attach(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    this.abort = new AbortController();
    const signal = this.abort.signal;
    let idle: NodeJS.Timeout | null = null;
    const held: Array<{ kind: EntryKind; text: string }> = [];
    let matching = this.afterEnd;
    const [blockStart, blockEnd] = this.lastBlock();
    let first = true;
    const flushHeld = () => {
      for (const h of held) this.push(h.kind, h.text);
      held.length = 0;
      matching = false;
    };
    const onLine = (kind: EntryKind, text: string) => {
      if (first && this.clearOnFirst) {
        this.entries.length = 0;
        this.clearOnFirst = false;
      }
      first = false;
      if (this.ended) {
        this.ended = false;
        this.endReason = null;
      }
      if (this.error !== null) this.error = null;
      if (matching) {
        const want = this.entries[blockStart + held.length];
        if (blockStart + held.length < blockEnd && want?.kind === kind && want.text === text) {
          held.push({ kind, text });
          return;
        }
        held.push({ kind, text });
        flushHeld();
        this.delay = BASE_DELAY_MS;
        return;
      }
      this.push(kind, text);
    };
    try {
      const body = await this.deps.client.stream(this.path, signal);
      const reader = body.getReader();
      const decoder = new TextDecoder();
      const parser = new SseParser();
      const armIdle = () => {
        if (idle) clearTimeout(idle);
        idle = setTimeout(() => this.abort?.abort(new Error('idle')), IDLE_LIMIT_MS);
      };
      armIdle();
      let endReason: string | undefined;
      let gotEnd = false;
      read: for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        armIdle();
        for (const ev of parser.push(decoder.decode(value, { stream: true }))) {
          if (ev.event === 'end') {
            gotEnd = true;
            try {
              endReason = (JSON.parse(ev.data) as { reason?: string }).reason;
            } catch {
              endReason = undefined;
            }
            break read;
          }
          if (ev.event !== 'line' && ev.event !== 'message') continue;
          const line = decodeLogLine(ev.data) ?? { stream: 'stdout' as const, text: ev.data };
          onLine(line.stream, cleanLogLine(line.text));
        }
      }
      await reader.cancel().catch(() => {});
      if (gotEnd) {
        const duplicate = matching && held.length > 0 && blockStart + held.length === blockEnd;
        if (duplicate) {
          held.length = 0;
          this.delay = Math.min(MAX_DELAY_MS, this.delay * 2);
        } else {
          flushHeld();
          if (endReason !== 'no-output') this.push('meta', 'end of run output');
          this.delay = BASE_DELAY_MS;
        }
        this.ended = true;
        this.endReason = endReason ?? null;
        this.afterEnd = endReason !== 'no-output';
        this.changed();
      }
    } catch (e) {
      if (this.stopped) return;
      if (e instanceof HttpError && e.unauthorized) {
        this.error = 'unauthorized';
        this.changed();
        return;
      }
      flushHeld();
      this.error = errorText(e);
      this.clearOnFirst = true;
      this.afterEnd = false;
      this.delay = BASE_DELAY_MS;
      this.changed();
    } finally {
      if (idle) clearTimeout(idle);
    }
    if (this.stopped) return;
    if (!this.follow && this.ended) return;
    this.timer = setTimeout(() => void this.attach(), this.delay);
  }

  /** Turns re-attaching on or off; turning it on resumes a tail that stopped at the end of a run. */
  setFollow(on: boolean): void {
    this.follow = on;
    if (on && this.ended && this.timer === null && !this.stopped) {
      this.timer = setTimeout(() => void this.attach(), 0);
    }
  }
}
