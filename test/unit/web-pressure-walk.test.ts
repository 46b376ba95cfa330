// walkMinutes (the per-minute walk behind /schedule/pressure): the fires it reports per minute add up to the
// engine's own fires in the window, also for per-second schedules whose first and last minutes are cut.
import { describe, expect, it } from 'vitest';
import { walkMinutes } from '../../src/api/pressure.ts';
import { occurrences, parseCron, UTC_FRAME } from '../../src/schedule/index.ts';

const FROM = Date.UTC(2026, 6, 6, 10, 52, 23, 400);

function walked(expr: string, from: number, until: number): { total: number; minutes: Map<number, number> } {
  const minutes = new Map<number, number>();
  let total = 0;
  walkMinutes(parseCron(expr), UTC_FRAME, from, until, (at, fires) => {
    const m = Math.floor(at / 60_000);
    minutes.set(m, (minutes.get(m) ?? 0) + fires);
    total += fires;
  });
  return { total, minutes };
}

describe('walkMinutes', () => {
  for (const expr of ['*/2 * * * * * *', '*/7 * * * * * *', '5,35 * * * * * *', '0 */5 * * * *']) {
    it(`counts exactly the engine's fires of ${expr} in a 24 h window that starts and ends mid-minute`, () => {
      const until = FROM + 24 * 3_600_000;
      const exact = occurrences(parseCron(expr), UTC_FRAME, FROM, { untilMs: until, limit: 100_000 });
      const w = walked(expr, FROM, until);
      expect(w.total).toBe(exact.length);
      // The minute of day the window starts and ends in is not counted twice over.
      const first = Math.floor(FROM / 60_000);
      const last = Math.floor(until / 60_000);
      const inMinute = (m: number) => exact.filter((t) => Math.floor(t / 60_000) === m).length;
      if (w.minutes.has(first)) expect(w.minutes.get(first)).toBe(inMinute(first));
      if (w.minutes.has(last)) expect(w.minutes.get(last)).toBe(inMinute(last));
    });
  }
});
