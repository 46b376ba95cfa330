// The pause book (spec 10 §1.3-§1.4) on a fake clock: expiry reads as absent before the sweep,
// the sweep logs each expiry once, a store record that already expired is never revived, and a
// resume reaches the sink even when this node holds no pause; an expiry within a round is logged
// when it happens, by a timer of its own.
import { describe, expect, it } from 'vitest';
import { expiryTimer } from '../../src/daemon/pauses.ts';
import { type Pause, PauseBook } from '../../src/scheduler/pauses.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { Logger, type LogRecord, setSink } from '../../src/util/log.ts';

function book() {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const logs: string[] = [];
  setSink((r: LogRecord) => logs.push(r.message));
  const b = new PauseBook(clock, new Logger('cronstable'));
  const sent: string[] = [];
  b.sink = { paused: (j) => sent.push(`paused ${j}`), resumed: (j, by) => sent.push(`resumed ${j} ${by}`) };
  return { clock, logs, b, sent };
}

const win = (sinceMs: number, seconds: number): Pause => ({
  sinceMs,
  untilMs: sinceMs + seconds * 1000,
  note: 'maint',
  by: 'me',
  channel: 'api',
});

describe('PauseBook', () => {
  it('v16: an expired pause reads as absent at once, and the sweep logs it once', async () => {
    const { clock, logs, b } = book();
    b.pause('tick', win(clock.now(), 60));
    expect(b.active('tick')).not.toBeNull();
    expect(logs.at(-1)).toBe('Job tick paused until 2026-01-01T00:01:00.000Z by me (api): maint');
    await clock.advance(60_000);
    expect(b.active('tick')).toBeNull();
    expect(b.sweep(new Set(['tick']))).toEqual(['tick']);
    expect(logs.at(-1)).toBe('Job tick: pause expired at 2026-01-01T00:01:00.000Z; scheduled runs resume');
    b.adopt('tick', win(clock.now() - 120_000, 60));
    expect(b.sweep(new Set(['tick']))).toEqual([]);
  });

  it('a resume is sent even when no pause is held here, and logs only a lifted pause', () => {
    const { clock, logs, b, sent } = book();
    expect(b.resume('tick', 'ops', 'api')).toBe(false);
    expect(sent).toEqual(['resumed tick ops']);
    b.adopt('tick', win(clock.now(), 600));
    expect(b.resume('tick', 'ops', 'mcp')).toBe(true);
    expect(logs.at(-1)).toBe('Job tick resumed by ops (mcp)');
  });

  it('drops the pause of a job that is gone', async () => {
    const { clock, b } = book();
    b.pause('gone', win(clock.now(), 600));
    b.sweep(new Set(['other']));
    await clock.advance(1);
    expect(b.active('gone')).toBeNull();
  });

  it('logs an expiry within a round when it happens, re-arms on changes, and stops', async () => {
    const { clock, logs, b } = book();
    const expiredLines = () => logs.filter((l) => l.includes('pause expired'));
    const sweep = () => b.sweep(new Set(['tick', 'long']));
    const t = expiryTimer(b, clock, 10_000, sweep);
    b.pause('tick', win(clock.now(), 3));
    // A later pause is beyond the horizon: no timer for it yet.
    b.pause('long', win(clock.now(), 60));
    await clock.advance(2_990);
    expect(expiredLines()).toEqual([]);
    await clock.advance(20);
    expect(expiredLines()).toEqual([
      'Job tick: pause expired at 2026-01-01T00:00:03.000Z; scheduled runs resume',
    ]);
    // 'long' ends at 60 s; nothing fires for it until a round re-arms within the horizon.
    await clock.advance(50_000);
    expect(expiredLines()).toHaveLength(1);
    // 53 s: a round re-arms, 7 s before its end.
    t.arm();
    await clock.advance(7_010);
    expect(expiredLines().at(-1)).toBe(
      'Job long: pause expired at 2026-01-01T00:01:00.000Z; scheduled runs resume',
    );
    // A re-pause replaces the window and the timer with it; after stop nothing fires.
    b.pause('tick', win(clock.now(), 5));
    b.pause('tick', win(clock.now(), 8));
    await clock.advance(6_000);
    expect(b.active('tick')).not.toBeNull();
    t.stop();
    await clock.advance(10_000);
    expect(expiredLines()).toHaveLength(2);
  });
});
