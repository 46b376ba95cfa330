// Differential property test: nextFire against croner 10 on the grammar subset where both dialects agree
// (spec 01 §9). croner runs with domAndDow (AND day rule) and sloppyRanges (bare-start steps `a/s`).
// Excluded, explicitly: instants whose next civil match falls in a DST gap (croner skips it, we fire at the
// shifted time) and start instants inside a repeated (fall-back) hour, where croner can return a time before
// the start.
import { Cron } from 'croner';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Frame, nextFire, parseCron, resolveFrame } from '../../src/schedule/index.ts';
import { nextCivil } from '../../src/schedule/search.ts';
import { frameZone } from '../../src/schedule/zone.ts';

const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/Berlin',
  'Asia/Tokyo',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'America/St_Johns',
  'Pacific/Chatham',
  'America/Sao_Paulo',
  'Europe/London',
];

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** A plain item of a numeric field lo..hi: value, *, a-b, *\/s, a-b/s or a/s, valid in our dialect. */
function plainItem(
  lo: number,
  hi: number,
  end = hi,
  names?: readonly string[],
  nameBase = 0,
): fc.Arbitrary<string> {
  const value = names
    ? fc.oneof(
        fc.integer({ min: lo, max: hi }).map(String),
        fc.integer({ min: 0, max: names.length - 1 }).map((i) => names[i]!),
      )
    : fc.integer({ min: lo, max: hi }).map(String);
  const num = (v: string): number => (names?.includes(v) ? names.indexOf(v) + nameBase : Number(v));
  return fc.oneof(
    { weight: 4, arbitrary: value },
    { weight: 2, arbitrary: fc.constant('*') },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.integer({ min: lo, max: hi }), fc.integer({ min: lo, max: hi }))
        .map(([a, b]) => (a <= b ? `${a}-${b}` : `${b}-${a}`)),
    },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: Math.max(1, hi - lo) }).map((s) => `*/${s}`) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.integer({ min: lo, max: hi }),
          fc.integer({ min: lo, max: hi }),
          fc.integer({ min: 1, max: hi }),
        )
        .filter(([a, b, s]) => Math.min(a, b) + s <= hi)
        .map(([a, b, s]) => `${Math.min(a, b)}-${Math.max(a, b)}/${s}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(value, fc.integer({ min: 1, max: hi }))
        .filter(([a, s]) => num(a) <= end && num(a) + s <= hi)
        .map(([a, s]) => `${a}/${s}`),
    },
  );
}

const list = (item: fc.Arbitrary<string>) =>
  fc.array(item, { minLength: 1, maxLength: 3 }).map((xs) => xs.join(','));

const second = list(plainItem(0, 59));
const minute = list(plainItem(0, 59));
const hour = list(plainItem(0, 23));
const month = list(plainItem(1, 12, 12, MONTHS, 1));
const domField = fc.oneof(
  { weight: 6, arbitrary: fc.constant('*') },
  { weight: 4, arbitrary: list(plainItem(1, 31)) },
  { weight: 1, arbitrary: fc.constant('L') },
  { weight: 1, arbitrary: fc.constant('LW') },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 31 }).map((n) => `${n}W`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1, max: 28 }))
      .map(([a, b]) => `${a},${b}W,L`),
  },
);
/** Day-of-week: plain items (no `x-0` ranges: croner rejects them), d#n, L<d> (croner spells it d#L). */
const dowItem = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 7 }).map(String) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 6 }).map((d) => DAYS[d]!) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 1, max: 7 }))
      .filter(([a, b]) => a <= b)
      .map(([a, b]) => `${a}-${b}`),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 7 }).map((s) => `*/${s}`) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 1, max: 5 }))
      .map(([d, n]) => `${d}#${n}`),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 7 }).map((d) => `L${d}`) },
);
const dowField = fc.oneof(
  { weight: 5, arbitrary: fc.constant('*') },
  { weight: 4, arbitrary: list(dowItem) },
);

const expression = fc
  .tuple(fc.boolean(), second, minute, hour, domField, month, dowField)
  .map(([withSeconds, s, mi, h, dom, mo, dow]) =>
    withSeconds ? `${s} ${mi} ${h} ${dom} ${mo} ${dow} *` : `${mi} ${h} ${dom} ${mo} ${dow}`,
  );

/** Our dialect -> croner's: last weekday `L<d>` is `<d>#L` there. */
function toCroner(expr: string): string {
  const f = expr.split(' ');
  const dow = f.length === 7 ? 5 : 4;
  f[dow] = f[dow]!.split(',')
    .map((item) => item.replace(/^L(\d)$/, '$1#L'))
    .join(',');
  return f.join(' ');
}

const START_MIN = Date.UTC(1995, 0, 1);
const START_MAX = Date.UTC(2060, 0, 1);

interface Tally {
  compared: number;
  gapSkips: number;
  foldSkips: number;
  cronerOverflow: number;
}

/** Compares one (expression, zone, start) case, or records why it is excluded. */
function check(expr: string, zone: string, start: number, tally: Tally): void {
  const s = parseCron(expr);
  const frame: Frame = resolveFrame({ timezone: zone });
  const z = frameZone(frame);
  // Exclusion 1: the start is inside a repeated hour (its civil label occurs twice).
  const label = Math.floor(z.render(start) / 1000);
  if (z.classify(label * 1000) === 'ambiguous') {
    tally.foldSkips++;
    return;
  }
  // Exclusion 2: the first civil match is a skipped (gap) wall time.
  const m = nextCivil(s, label + 1);
  if (m >= 0 && z.classify(m * 1000) === 'gap') {
    tally.gapSkips++;
    return;
  }
  const ours = nextFire(s, frame, start);
  let theirs: number | null;
  try {
    const c = new Cron(toCroner(expr), { timezone: zone, domAndDow: true, sloppyRanges: true });
    theirs = c.nextRun(new Date(start))?.getTime() ?? null;
  } catch (e) {
    // croner recurses once per candidate day; a dead AND combination overflows its stack.
    if (e instanceof RangeError && /call stack/.test(e.message) && ours === null) {
      tally.cronerOverflow++;
      return;
    }
    throw e;
  }
  if (ours === null && theirs !== null) {
    // We stop after 2099; croner searches on.
    expect(new Date(theirs).getUTCFullYear()).toBeGreaterThan(2099);
  } else {
    expect(ours === null ? null : new Date(ours).toISOString()).toBe(
      theirs === null ? null : new Date(theirs).toISOString(),
    );
  }
  tally.compared++;
}

/** Offset transitions of each zone in 2025-2027 (found with the engine's own zone cache). */
function transitions(zone: string): number[] {
  const z = frameZone(resolveFrame({ timezone: zone }));
  const out: number[] = [];
  for (let t = Date.UTC(2025, 0, 1); t < Date.UTC(2028, 0, 1); t += 86_400_000) {
    const found = z.lastTransition(t - 86_400_000, t);
    if (found !== null) out.push(found.at);
  }
  return out;
}

describe('nextFire agrees with croner 10 on the shared subset', () => {
  it('random expressions, zones and start instants', () => {
    const tally: Tally = { compared: 0, gapSkips: 0, foldSkips: 0, cronerOverflow: 0 };
    fc.assert(
      fc.property(
        expression,
        fc.constantFrom(...ZONES),
        fc.integer({ min: START_MIN, max: START_MAX }),
        (e, z, t) => check(e, z, t, tally),
      ),
      { numRuns: 2000, seed: 20260107 },
    );
    expect(tally.compared).toBeGreaterThan(1850);
    expect(tally.gapSkips + tally.foldSkips + tally.cronerOverflow).toBeLessThan(150);
  });

  it('start instants within hours of a DST transition', () => {
    const cases = ZONES.flatMap((zone) => transitions(zone).map((at) => ({ zone, at })));
    expect(cases.length).toBeGreaterThan(30);
    const dense = fc
      .tuple(
        fc.boolean(),
        second,
        minute,
        hour,
        fc.constantFrom('*', '*', 'L', '1-15', '*/2'),
        fc.constant('*'),
        fc.constantFrom('*', '*', 'mon-fri', '0,6'),
      )
      .map(([withSeconds, s, mi, h, dom, mo, dow]) =>
        withSeconds ? `${s} ${mi} ${h} ${dom} ${mo} ${dow} *` : `${mi} ${h} ${dom} ${mo} ${dow}`,
      );
    const tally: Tally = { compared: 0, gapSkips: 0, foldSkips: 0, cronerOverflow: 0 };
    fc.assert(
      fc.property(
        dense,
        fc.constantFrom(...cases),
        fc.integer({ min: -4 * 3_600_000, max: 4 * 3_600_000 }),
        (e, c, d) => check(e, c.zone, c.at + d, tally),
      ),
      { numRuns: 1200, seed: 8032026 },
    );
    // The exclusions really happen here, and most cases are still compared.
    expect(tally.gapSkips).toBeGreaterThan(2);
    expect(tally.foldSkips).toBeGreaterThan(10);
    expect(tally.compared).toBeGreaterThan(800);
  });
});
