// Load-time schedule lints (spec 01 §6.1). Never fatal; the loader logs them and keeps them on the job.

import { bitList, bitList60, lowest60, popcount } from './bits.ts';
import { DAY_MS, DAY_S, formatCivilDate, formatClock } from './civil.ts';
import { ALL_DOM, domMatchesAll, dowMatchesAll } from './days.ts';
import { DEFAULT_DST_POLICY, type DstPolicy } from './dst.ts';
import { joinAnd, MONTH_LONG, plural } from './english.ts';
import { FIELDS, Kind, yearList } from './fields.ts';
import type { CronSchedule } from './parse.ts';
import { matchesInstant, nextCivil, nextFire } from './search.ts';
import { type Frame, frameZone, type ZoneInfo } from './zone.ts';

export interface ScheduleFinding {
  code: string;
  level: 'warning' | 'note';
  message: string;
}

/** Longest length of each month (February counts 29). */
const MAX_LEN = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// Fields checked for uneven steps, with the wrap span and unit of each.
const STEP_FIELDS: readonly { kind: Kind; span: number; unit: string }[] = [
  { kind: Kind.Second, span: 60, unit: 'second' },
  { kind: Kind.Minute, span: 60, unit: 'minute' },
  { kind: Kind.Hour, span: 24, unit: 'hour' },
  { kind: Kind.DayOfMonth, span: 0, unit: 'day' },
  { kind: Kind.Month, span: 12, unit: 'month' },
  { kind: Kind.DayOfWeek, span: 7, unit: 'day' },
];

const STEP_ITEM = /^[*h]\/(\d+)$/;

function unevenSteps(s: CronSchedule): ScheduleFinding[] {
  const out: ScheduleFinding[] = [];
  for (const { kind, span, unit } of STEP_FIELDS) {
    const text = s.fieldTexts[kind];
    if (text === null || text === undefined) continue;
    const label = FIELDS[kind]!.label;
    for (const item of text.split(',')) {
      const m = STEP_ITEM.exec(item.toLowerCase());
      if (m === null) continue;
      const n = Number(m[1]);
      if (n <= 1) continue;
      if (kind === Kind.DayOfMonth) {
        out.push({
          code: 'uneven-step',
          level: 'note',
          message: `'${item}' in the ${label} field restarts at day 1 each month, so the interval across a month end varies`,
        });
        continue;
      }
      if (span % n === 0) continue;
      const wrap = span - Math.floor((span - 1) / n) * n;
      out.push({
        code: 'uneven-step',
        level: 'warning',
        message: `'${item}' in the ${label} field: ${span} is not a multiple of ${n}, so the interval that wraps around is only ${plural(wrap, unit)}`,
      });
    }
  }
  return out;
}

/** D = min(plain days ∪ W targets), O = min(L-offsets), as used by the month-reachability lints. */
function dayReach(s: CronSchedule): { d: number | null; o: number | null } | null {
  const forms = s.domForms;
  if (forms !== null && ((forms.lastOffsets & 1) !== 0 || forms.lastWeekday)) return null; // bare L / LW
  if (domMatchesAll(s)) return null;
  const days = (s.domPlain | (forms?.nearestWeekday ?? 0)) & ALL_DOM;
  const d = days === 0 ? null : 31 - Math.clz32(days & -days);
  const offs = (forms?.lastOffsets ?? 0) & ~1;
  const o = offs === 0 ? null : 31 - Math.clz32(offs & -offs);
  if (d === null && o === null) return null;
  return { d, o };
}

function reachable(r: { d: number | null; o: number | null }, len: number): boolean {
  return (r.d !== null && r.d <= len) || (r.o !== null && r.o <= len - 1);
}

function monthFindings(s: CronSchedule): ScheduleFinding[] {
  const r = dayReach(s);
  if (r === null) return [];
  const out: ScheduleFinding[] = [];
  const skipped = bitList(s.months).filter((m) => !reachable(r, MAX_LEN[m]!));
  if (skipped.length > 0) {
    out.push({
      code: 'skipped-months',
      level: 'warning',
      message: `the day-of-month field never matches in ${joinAnd(skipped.map((m) => MONTH_LONG[m - 1]!))}, so those months are skipped`,
    });
  }
  if ((s.months & (1 << 2)) !== 0 && reachable(r, 29) && !reachable(r, 28)) {
    out.push({
      code: 'leap-day-only',
      level: 'note',
      message:
        'in February the day-of-month field only matches the 29th, so February runs happen in leap years only',
    });
  }
  return out;
}

function neverFires(s: CronSchedule): ScheduleFinding {
  // Did the schedule ever have an occurrence from 1970 on? Then only the year column ends it.
  const epoch = nextCivil(s, 0);
  let message = 'day, month and weekday fields never line up on a real date, so it will never fire';
  if (s.years !== null && epoch >= 0) {
    const maxYear = yearList(s.years).pop();
    message = `the year column ends at ${maxYear}, so it will never fire again`;
  }
  return { code: 'never-fires', level: 'warning', message };
}

/** dst-skipped-time / dst-repeated-time notes for the next 366 days (at most two). */
function dstFindings(s: CronSchedule, frame: Frame, nowMs: number, dst: DstPolicy): ScheduleFinding[] {
  if (frame.kind !== 'zone' || popcount(s.hours) >= 24) return [];
  const z = frameZone(frame);
  const today = Math.floor(z.render(nowMs) / DAY_MS);
  const midnightOffset = (day: number): number => z.offset(z.resolve(day * DAY_MS));
  const out: ScheduleFinding[] = [];
  const hours = bitList(s.hours);
  const minutes = bitList60(s.minLo, s.minHi);
  let prevOff = midnightOffset(today);
  for (let k = 1; k <= 366 && out.length < 2; k++) {
    const off = midnightOffset(today + k);
    if (off === prevOff) continue;
    prevOff = off;
    const candidates = [today + k - 1, today + k];
    const finding = firstDstMatch(s, frame, z, candidates, hours, minutes, dst);
    if (finding !== null) out.push(finding);
  }
  return out;
}

function firstDstMatch(
  s: CronSchedule,
  frame: Frame & { zone: string },
  z: ZoneInfo,
  candidateDays: number[],
  hours: number[],
  minutes: number[],
  dst: DstPolicy,
): ScheduleFinding | null {
  for (const day of candidateDays) {
    const base = day * DAY_MS;
    const affected = hours.filter(
      (h) =>
        z.classify(base + h * 3_600_000) !== 'normal' ||
        z.classify(base + h * 3_600_000 + 1_800_000) !== 'normal',
    );
    for (const h of affected) {
      for (const mi of minutes) {
        const sod = h * 3600 + mi * 60 + lowest60(s.secLo, s.secHi);
        const civil = base + sod * 1000;
        const kind = z.classify(civil);
        if (kind === 'normal') continue;
        if (!matchesCivil(s, civil)) continue;
        const date = formatCivilDate(day);
        const clock = formatClock(sod);
        if (kind === 'gap') {
          const shifted = formatClock(Math.floor(z.render(z.resolve(civil)) / 1000) % DAY_S);
          return {
            code: 'dst-skipped-time',
            level: 'note',
            message: `on ${date} the wall time ${clock} does not exist in ${frame.zone} (clocks jump forward); ${
              dst.skipped === 'skip'
                ? 'does not fire that day (dst.skipped: skip)'
                : `fires at the shifted wall time ${shifted}`
            }`,
          };
        }
        return {
          code: 'dst-repeated-time',
          level: 'note',
          message: `on ${date} the wall time ${clock} occurs twice in ${frame.zone} (clocks fall back); ${REPEATED_TEXT[dst.repeated]}`,
        };
      }
    }
  }
  return null;
}

const REPEATED_TEXT: Record<DstPolicy['repeated'], string> = {
  first: 'fires on the first occurrence only',
  last: 'fires on the second occurrence only (dst.repeated: last)',
  both: 'fires on both occurrences (dst.repeated: both)',
};

/** test() on a civil time: evaluate the fields on the wall-clock reading itself. */
function matchesCivil(s: CronSchedule, civilMs: number): boolean {
  return matchesInstant(s, { kind: 'utc' }, civilMs);
}

/**
 * Lints of one schedule in its frame, in the spec's order: hashed-slot, never-fires,
 * day-fields-both-restricted, uneven-step(s), then (only when it can still fire) skipped-months, leap-day-only
 * and the DST notes.
 */
export function lintSchedule(
  s: CronSchedule,
  frame: Frame,
  nowMs: number,
  dst: DstPolicy = DEFAULT_DST_POLICY,
): ScheduleFinding[] {
  const out: ScheduleFinding[] = [];
  if (s.resolved !== s.source) {
    out.push({
      code: 'hashed-slot',
      level: 'note',
      message: `H resolves to '${s.resolved}' for this job; renaming the job moves the slot`,
    });
  }
  const dead = nextFire(s, frame, nowMs, dst) === null;
  if (dead) out.push(neverFires(s));
  if (!domMatchesAll(s) && !dowMatchesAll(s)) {
    out.push({
      code: 'day-fields-both-restricted',
      level: 'warning',
      message:
        'both day-of-month and day-of-week are restricted: a day must match both (AND), unlike Vixie cron where either one is enough (OR)',
    });
  }
  out.push(...unevenSteps(s));
  if (!dead) {
    out.push(...monthFindings(s));
    out.push(...dstFindings(s, frame, nowMs, dst));
  }
  return out;
}
