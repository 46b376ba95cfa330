// Issue 15: the DST policy against an oracle built from each zone's own offsets, over every offset
// transition of every IANA zone the runtime knows, 2000-2040; plus hand-written vectors.
import { describe, expect, it } from 'vitest';
import {
  type DstPolicy,
  nextFire,
  occurrences,
  parseCron,
  prevFire,
  resolveFrame,
} from '../../src/schedule/index.ts';

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const POLICIES: DstPolicy[] = [];
for (const repeated of ['first', 'last', 'both'] as const)
  for (const skipped of ['shift', 'skip'] as const) POLICIES.push({ repeated, skipped });

/** Offset (ms) of an instant in a zone, read from Intl's own offset name (not through the engine). */
function offsetReader(zone: string): (ms: number) => number {
  const f = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  return (ms) => {
    const m = /GMT([+-])(\d\d):(\d\d)(?::(\d\d))?$/.exec(f.format(ms));
    if (m === null) return 0; // plain "GMT"
    const v = Number(m[2]) * HOUR + Number(m[3]) * MIN + Number(m[4] ?? 0) * 1000;
    return m[1] === '-' ? -v : v;
  };
}

interface Transition {
  at: number;
  before: number;
  after: number;
}

/** Every offset change in [from, to), by a 6-day sweep and bisection to the second. */
function transitions(zone: string, from: number, to: number): Transition[] {
  const off = offsetReader(zone);
  const out: Transition[] = [];
  let prev = off(from);
  for (let a = from; a < to; a += 6 * DAY) {
    const b = a + 6 * DAY;
    const ob = off(b);
    if (ob === prev) continue;
    let lo = a;
    let hi = b;
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      if (off(mid) === prev) lo = mid;
      else hi = mid;
    }
    out.push({ at: hi, before: prev, after: off(hi) });
    prev = ob;
  }
  return out;
}

/**
 * The policy's fires of a minute-granular schedule (given as a predicate on the wall clock's hour and
 * minute) in (w0, w1], around one transition, from the definition:
 * - a wall time that exists once fires at that instant;
 * - a repeated wall time fires on its first, last or both occurrences;
 * - a skipped wall time: `skip` drops it; `shift` fires the first skipped match of the gap at the
 *   pre-transition offset's instant, and that fire stands for every match it jumped over (spec 01 §5.8).
 */
function expectedFires(
  t: Transition,
  labels: (lo: number, hi: number) => number[],
  w0: number,
  w1: number,
  p: DstPolicy,
): number[] {
  const fires = new Set<number>();
  const lo = w0 + Math.min(t.before, t.after);
  const hi = w1 + Math.max(t.before, t.after);
  let shifted: number | null = null;
  const normal: number[] = [];
  for (const label of labels(lo, hi)) {
    const uB = label - t.before;
    const uA = label - t.after;
    const vB = uB < t.at;
    const vA = uA >= t.at;
    if (vB && vA) {
      if (p.repeated !== 'last') fires.add(uB);
      if (p.repeated !== 'first') fires.add(uA);
    } else if (vB || vA) normal.push(vB ? uB : uA);
    else if (p.skipped === 'shift' && shifted === null) shifted = uB;
  }
  for (const u of normal) if (shifted === null || u < t.at || u >= shifted) fires.add(u);
  if (shifted !== null) fires.add(shifted);
  return [...fires].filter((u) => u > w0 && u <= w1).sort((a, b) => a - b);
}

function hm(ms: number): [number, number] {
  const d = new Date(ms);
  return [d.getUTCHours(), d.getUTCMinutes()];
}

interface Case {
  expr: string;
  /** every wall time (local ms as if UTC) in [lo, hi] the schedule matches */
  labels: (lo: number, hi: number) => number[];
  w0: number;
  w1: number;
  pointChecks: boolean;
}

/** Schedules aimed at the transition's hours: a daily at the first affected wall time and at its middle, and every 15 minutes. */
function casesFor(t: Transition): Case[] {
  const span = Math.abs(t.after - t.before);
  const first = t.at + Math.min(t.before, t.after); // first skipped or repeated label
  const out: Case[] = [];
  for (const label of [first, first + Math.floor(span / 2 / MIN) * MIN]) {
    const [h, m] = hm(label);
    out.push({
      expr: `${m} ${h} * * *`,
      labels: (lo, hi) => {
        const out: number[] = [];
        for (let d = Math.floor(lo / DAY) * DAY + h * HOUR + m * MIN; d <= hi; d += DAY)
          if (d >= lo) out.push(d);
        return out;
      },
      w0: t.at - span - 2 * DAY,
      w1: t.at + span + 2 * DAY,
      pointChecks: true,
    });
  }
  out.push({
    expr: '*/15 * * * *',
    labels: (lo, hi) => {
      const out: number[] = [];
      for (let l = Math.ceil(lo / (15 * MIN)) * 15 * MIN; l <= hi; l += 15 * MIN) out.push(l);
      return out;
    },
    w0: t.at - span - 2 * HOUR,
    w1: t.at + span + 2 * HOUR,
    pointChecks: false,
  });
  return out;
}

function checkTransition(zone: string, t: Transition): string[] {
  const frame = resolveFrame({ timezone: zone });
  const problems: string[] = [];
  for (const c of casesFor(t)) {
    const s = parseCron(c.expr);
    for (const p of POLICIES) {
      const want = expectedFires(t, c.labels, c.w0, c.w1, p);
      const got = occurrences(s, frame, c.w0, { untilMs: c.w1, dst: p });
      const tag = `${zone} ${new Date(t.at).toISOString()} '${c.expr}' ${p.repeated}/${p.skipped}`;
      if (got.join() !== want.join()) {
        problems.push(
          `${tag}: got ${got.map((u) => new Date(u).toISOString())} want ${want.map((u) => new Date(u).toISOString())}`,
        );
        continue;
      }
      if (!c.pointChecks) continue;
      for (let i = 0; i < want.length; i++) {
        if (i > 0 && prevFire(s, frame, want[i]!, p) !== want[i - 1])
          problems.push(
            `${tag}: prevFire(${new Date(want[i]!).toISOString()}) != ${new Date(want[i - 1]!).toISOString()}`,
          );
        if (i > 0 && nextFire(s, frame, want[i - 1]!, p) !== want[i])
          problems.push(`${tag}: nextFire chain broken at ${new Date(want[i - 1]!).toISOString()}`);
      }
    }
  }
  return problems;
}

describe('DST policy over every transition of every IANA zone, 2000-2040', () => {
  it('no slot lost or doubled against the policy definition', { timeout: 120_000 }, () => {
    const zones = Intl.supportedValuesOf('timeZone');
    expect(zones.length).toBeGreaterThan(300);
    const from = Date.UTC(2000, 0, 1);
    const to = Date.UTC(2041, 0, 1);
    let count = 0;
    const problems: string[] = [];
    const t0 = performance.now();
    const found = zones.map((zone) => [zone, transitions(zone, from, to)] as const);
    const t1 = performance.now();
    for (const [zone, list] of found) {
      for (const t of list) {
        count++;
        problems.push(...checkTransition(zone, t));
        if (problems.length > 20) break;
      }
    }
    console.log(
      `transitions ${count} found in ${Math.round(t1 - t0)} ms, checked in ${Math.round(performance.now() - t1)} ms`,
    );
    expect(problems.slice(0, 20)).toEqual([]);
    // Thousands of transitions: DST zones change twice a year.
    expect(count).toBeGreaterThan(5000);
  });
});

const iso = (s: string) => Date.parse(s);
const fmt = (xs: number[]) => xs.map((x) => new Date(x).toISOString().replace(':00.000Z', 'Z'));

function fires(expr: string, zone: string, from: string, to: string, p: DstPolicy): string[] {
  return fmt(
    occurrences(parseCron(expr), resolveFrame({ timezone: zone }), iso(from), { untilMs: iso(to), dst: p }),
  );
}

describe('hand-written vectors', () => {
  const FIRST_SHIFT: DstPolicy = { repeated: 'first', skipped: 'shift' };
  it('America/New_York fall back 2026-11-01: 01:30 on first, last, both', () => {
    const run = (repeated: DstPolicy['repeated']) =>
      fires('30 1 * * *', 'America/New_York', '2026-10-31T12:00Z', '2026-11-02T12:00Z', {
        repeated,
        skipped: 'shift',
      });
    expect(run('first')).toEqual(['2026-11-01T05:30Z', '2026-11-02T06:30Z']);
    expect(run('last')).toEqual(['2026-11-01T06:30Z', '2026-11-02T06:30Z']);
    expect(run('both')).toEqual(['2026-11-01T05:30Z', '2026-11-01T06:30Z', '2026-11-02T06:30Z']);
  });

  it('America/New_York fall back: */15 over the repeated hour', () => {
    const run = (repeated: DstPolicy['repeated']) =>
      fires('*/15 * * * *', 'America/New_York', '2026-11-01T05:40Z', '2026-11-01T07:00Z', {
        repeated,
        skipped: 'skip',
      });
    expect(run('first')).toEqual(['2026-11-01T05:45Z', '2026-11-01T07:00Z']);
    expect(run('last')).toEqual([
      '2026-11-01T06:00Z',
      '2026-11-01T06:15Z',
      '2026-11-01T06:30Z',
      '2026-11-01T06:45Z',
      '2026-11-01T07:00Z',
    ]);
    expect(run('both')).toEqual([
      '2026-11-01T05:45Z',
      '2026-11-01T06:00Z',
      '2026-11-01T06:15Z',
      '2026-11-01T06:30Z',
      '2026-11-01T06:45Z',
      '2026-11-01T07:00Z',
    ]);
    // `after` on the second leg: last/both still owe the rest of the second leg.
    const s = parseCron('*/15 * * * *');
    const ny = resolveFrame({ timezone: 'America/New_York' });
    expect(nextFire(s, ny, iso('2026-11-01T06:20Z'), { repeated: 'both', skipped: 'shift' })).toBe(
      iso('2026-11-01T06:30Z'),
    );
    expect(nextFire(s, ny, iso('2026-11-01T06:20Z'))).toBe(iso('2026-11-01T07:00Z'));
    // `after` on the first leg: `both` fires the first leg's rest, then the whole second leg.
    expect(nextFire(s, ny, iso('2026-11-01T05:50Z'), { repeated: 'both', skipped: 'shift' })).toBe(
      iso('2026-11-01T06:00Z'),
    );
    expect(nextFire(s, ny, iso('2026-11-01T05:20Z'), { repeated: 'last', skipped: 'shift' })).toBe(
      iso('2026-11-01T06:00Z'),
    );
  });

  it('America/New_York spring forward 2026-03-08: 02:30 shifted or skipped', () => {
    const run = (skipped: DstPolicy['skipped']) =>
      fires('30 2 * * *', 'America/New_York', '2026-03-07T12:00Z', '2026-03-09T12:00Z', {
        repeated: 'first',
        skipped,
      });
    expect(run('shift')).toEqual(['2026-03-08T07:30Z', '2026-03-09T06:30Z']);
    expect(run('skip')).toEqual(['2026-03-09T06:30Z']);
    // every 15 minutes: shift collapses the gap into 03:00 EDT; skip just has no 02:xx.
    const every = (skipped: DstPolicy['skipped']) =>
      fires('*/15 * * * *', 'America/New_York', '2026-03-08T06:40Z', '2026-03-08T07:20Z', {
        repeated: 'first',
        skipped,
      });
    expect(every('shift')).toEqual(['2026-03-08T06:45Z', '2026-03-08T07:00Z', '2026-03-08T07:15Z']);
    expect(every('skip')).toEqual(['2026-03-08T06:45Z', '2026-03-08T07:00Z', '2026-03-08T07:15Z']);
    // a schedule only inside the gap: shift fires once (03:00 EDT), skip never
    const inGap = (skipped: DstPolicy['skipped']) =>
      fires('0,20,40 2 * * *', 'America/New_York', '2026-03-08T05:00Z', '2026-03-08T09:00Z', {
        repeated: 'first',
        skipped,
      });
    expect(inGap('shift')).toEqual(['2026-03-08T07:00Z']);
    expect(inGap('skip')).toEqual([]);
  });

  it('Europe/London: 01:30 on 2026-03-29 (skipped) and 2026-10-25 (repeated)', () => {
    expect(
      fires('30 1 * * *', 'Europe/London', '2026-03-28T12:00Z', '2026-03-30T12:00Z', FIRST_SHIFT),
    ).toEqual(['2026-03-29T01:30Z', '2026-03-30T00:30Z']);
    expect(
      fires('30 1 * * *', 'Europe/London', '2026-03-28T12:00Z', '2026-03-30T12:00Z', {
        repeated: 'both',
        skipped: 'skip',
      }),
    ).toEqual(['2026-03-30T00:30Z']);
    expect(
      fires('30 1 * * *', 'Europe/London', '2026-10-24T12:00Z', '2026-10-26T12:00Z', {
        repeated: 'both',
        skipped: 'skip',
      }),
    ).toEqual(['2026-10-25T00:30Z', '2026-10-25T01:30Z', '2026-10-26T01:30Z']);
    expect(
      fires('30 1 * * *', 'Europe/London', '2026-10-24T12:00Z', '2026-10-26T12:00Z', {
        repeated: 'last',
        skipped: 'skip',
      }),
    ).toEqual(['2026-10-25T01:30Z', '2026-10-26T01:30Z']);
  });

  it('Australia/Lord_Howe: half-hour jumps (02:00->02:30 on 2026-10-04, 02:00->01:30 on 2026-04-05)', () => {
    // fall back: UTC+11 -> UTC+10:30 at 02:00 local (2026-04-04T15:00Z); 01:45 exists twice
    expect(
      fires('45 1 * * *', 'Australia/Lord_Howe', '2026-04-04T00:00Z', '2026-04-05T12:00Z', {
        repeated: 'both',
        skipped: 'shift',
      }),
    ).toEqual(['2026-04-04T14:45Z', '2026-04-04T15:15Z']);
    expect(
      fires('45 1 * * *', 'Australia/Lord_Howe', '2026-04-04T00:00Z', '2026-04-05T12:00Z', {
        repeated: 'last',
        skipped: 'shift',
      }),
    ).toEqual(['2026-04-04T15:15Z']);
    // spring forward: UTC+10:30 -> UTC+11 at 02:00 local (2026-10-03T15:30Z); 02:15 does not exist
    expect(
      fires('15 2 * * *', 'Australia/Lord_Howe', '2026-10-03T00:00Z', '2026-10-04T12:00Z', FIRST_SHIFT),
    ).toEqual(['2026-10-03T15:45Z']);
    expect(
      fires('15 2 * * *', 'Australia/Lord_Howe', '2026-10-03T00:00Z', '2026-10-04T12:00Z', {
        repeated: 'first',
        skipped: 'skip',
      }),
    ).toEqual([]);
  });

  it('UTC frames and first/shift are untouched by the policy argument', () => {
    const s = parseCron('*/15 * * * *');
    const ny = resolveFrame({ timezone: 'America/New_York' });
    const from = iso('2026-11-01T04:00Z');
    const a = occurrences(s, ny, from, { limit: 50 });
    expect(occurrences(s, ny, from, { limit: 50, dst: FIRST_SHIFT })).toEqual(a);
    const utc = resolveFrame({});
    expect(occurrences(s, utc, from, { limit: 20, dst: { repeated: 'both', skipped: 'skip' } })).toEqual(
      occurrences(s, utc, from, { limit: 20 }),
    );
  });
});
