// Hostile instants at the engine's exported functions (issue 14 item 7): NaN, infinities and instants no
// Date can hold are refused with the engine's own error; instants outside 1970-2099 are clamped to the
// calendar (a far-past instant in a zone used to spin prevFire forever, and the day before 1970 answered
// "never fires").
import { describe, expect, it } from 'vitest';
import { runNext } from '../../src/cli/next.ts';
import {
  isSupportedInstant,
  matchesInstant,
  nextFire,
  occurrences,
  parseCron,
  prevFire,
  resolveFrame,
  ScheduleError,
  UTC_FRAME,
} from '../../src/schedule/index.ts';

const every = parseCron('* * * * *');
const PARIS = resolveFrame({ timezone: 'Europe/Paris' });
const LA = resolveFrame({ timezone: 'America/Los_Angeles' });
const HOSTILE = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 9e15, -9e15];

function refusal(fn: () => unknown): ScheduleError {
  try {
    fn();
  } catch (e) {
    return e as ScheduleError;
  }
  throw new Error('expected a ScheduleError, got an answer');
}

describe('engine input guards', () => {
  for (const frame of [UTC_FRAME, PARIS, LA]) {
    for (const at of HOSTILE) {
      it(`${frame.kind === 'utc' ? 'UTC' : 'zone'}: ${at} is refused by every search`, () => {
        for (const call of [
          () => nextFire(every, frame, at),
          () => prevFire(every, frame, at),
          () => matchesInstant(every, frame, at),
          () => occurrences(every, frame, at, { limit: 3 }),
        ]) {
          const e = refusal(call);
          expect(e).toBeInstanceOf(ScheduleError);
          expect(e.code).toBe('instant-out-of-range');
          expect(e.message).toContain('1970-01-01 to 2099-12-31');
        }
      });
    }
    it(`${frame.kind === 'utc' ? 'UTC' : 'zone'}: far-away instants are clamped to the calendar, never looped over`, () => {
      for (const past of [-1e15, -8.64e15, Date.UTC(1969, 5, 1)]) {
        expect(prevFire(every, frame, past)).toBeNull();
        const first = nextFire(every, frame, past)!;
        expect(new Date(first).getUTCFullYear()).toBeLessThanOrEqual(1970);
        expect(first).toBeGreaterThanOrEqual(-86_400_000);
        expect(occurrences(every, frame, past, { limit: 2 })).toEqual([first, first + 60_000]);
      }
      for (const future of [1e15, 8.64e15]) {
        expect(nextFire(every, frame, future)).toBeNull();
        expect(new Date(prevFire(every, frame, future)!).getUTCFullYear()).toBeGreaterThanOrEqual(2099);
      }
    });
  }

  it('occurrences refuses a NaN end or limit', () => {
    expect(refusal(() => occurrences(every, UTC_FRAME, 0, { untilMs: Number.NaN })).code).toBe(
      'instant-out-of-range',
    );
    expect(refusal(() => occurrences(every, UTC_FRAME, 0, { limit: Number.NaN })).code).toBe(
      'instant-out-of-range',
    );
  });

  it('the day before 1970 answers from the calendar start instead of "never fires"', () => {
    expect(nextFire(every, UTC_FRAME, -86_400_000)).toBe(0);
    expect(nextFire(every, UTC_FRAME, -1)).toBe(0);
    // Paris was UTC+1 on 1970-01-01: its local midnight is an hour before the epoch.
    expect(nextFire(every, PARIS, -86_400_000)).toBe(-3_600_000);
    expect(occurrences(every, UTC_FRAME, -86_400_000, { limit: 2 })).toEqual([0, 60_000]);
    expect(prevFire(every, UTC_FRAME, -1)).toBeNull();
  });

  it('the supported range spans one day either side of 1970-2099', () => {
    expect(isSupportedInstant(-86_400_000)).toBe(true);
    expect(isSupportedInstant(-86_400_001)).toBe(false);
    expect(isSupportedInstant(Date.UTC(2100, 0, 2))).toBe(true);
    expect(isSupportedInstant(Date.UTC(2100, 0, 2) + 1)).toBe(false);
    expect(isSupportedInstant(Number.NaN)).toBe(false);
    expect(nextFire(every, UTC_FRAME, Date.UTC(2100, 0, 1))).toBeNull();
  });
});

describe('cronstable next --after out of range', () => {
  async function run(argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runNext(argv, { out: (l) => out.push(l), err: (l) => err.push(l), nowMs: () => 0 });
    return { code, out, err };
  }

  it('before 1970 is a usage error naming the range', async () => {
    const r = await run(['* * * * *', '--after', '1969-06-01T00:00:00Z']);
    expect(r.code).toBe(2);
    expect(r.out).toEqual([]);
    expect(r.err).toEqual([
      "cronstable next: invalid --after value '1969-06-01T00:00:00Z': the schedule engine's calendar starts at 1970-01-01",
    ]);
  });

  it('the last day of 1969 still answers from 1970-01-01', async () => {
    const r = await run(['@hourly', '-n', '2', '--after', '1969-12-31T12:00:00Z']);
    expect(r).toEqual({ code: 0, out: ['1970-01-01T00:00:00Z', '1970-01-01T01:00:00Z'], err: [] });
  });
});
