// Next/previous fire search (spec 01 §5.7): a civil-time search over the field sets, then fold=0 resolution
// of the civil match in the frame (§5.8). Instants are epoch milliseconds; civil times are "local seconds"
// (the wall clock read as if it were UTC).
import { hasBit60, highest60, lowest60, nextBit, nextBit60, prevBit, prevBit60 } from './bits.ts';
import { civilFromDays, DAY_MS, DAY_S, daysFromCivil } from './civil.ts';
import { matchingDays } from './days.ts';
import { type DstPolicy, fireOfLabel, isDefaultDstPolicy, TRANSITION_REACH_MS } from './dst.ts';
import { ScheduleError } from './errors.ts';
import { FIRST_YEAR, LAST_YEAR } from './fields.ts';
import type { CronSchedule } from './parse.ts';
import { type Frame, frameZone, type ZoneInfo } from './zone.ts';

/** First allowed time of day >= sod (seconds), or -1 when none is left on that day. */
function nextTimeOfDay(s: CronSchedule, sod: number): number {
  const firstSec = lowest60(s.secLo, s.secHi);
  const h = (sod / 3600) | 0;
  const rem = sod - h * 3600;
  const mi = (rem / 60) | 0;
  const se = rem - mi * 60;
  let hh = nextBit(s.hours, h);
  if (hh < 0) return -1;
  if (hh !== h) return hh * 3600 + lowest60(s.minLo, s.minHi) * 60 + firstSec;
  let mm = nextBit60(s.minLo, s.minHi, mi);
  if (mm >= 0) {
    if (mm !== mi) return h * 3600 + mm * 60 + firstSec;
    const ss = nextBit60(s.secLo, s.secHi, se);
    if (ss >= 0) return h * 3600 + mi * 60 + ss;
    mm = nextBit60(s.minLo, s.minHi, mi + 1);
    if (mm >= 0) return h * 3600 + mm * 60 + firstSec;
  }
  hh = nextBit(s.hours, h + 1);
  if (hh < 0) return -1;
  return hh * 3600 + lowest60(s.minLo, s.minHi) * 60 + firstSec;
}

/** Last allowed time of day <= sod (seconds), or -1. */
function prevTimeOfDay(s: CronSchedule, sod: number): number {
  const lastSec = highest60(s.secLo, s.secHi);
  const h = (sod / 3600) | 0;
  const rem = sod - h * 3600;
  const mi = (rem / 60) | 0;
  const se = rem - mi * 60;
  let hh = prevBit(s.hours, h);
  if (hh < 0) return -1;
  if (hh !== h) return hh * 3600 + highest60(s.minLo, s.minHi) * 60 + lastSec;
  let mm = prevBit60(s.minLo, s.minHi, mi);
  if (mm >= 0) {
    if (mm !== mi) return h * 3600 + mm * 60 + lastSec;
    const ss = prevBit60(s.secLo, s.secHi, se);
    if (ss >= 0) return h * 3600 + mi * 60 + ss;
    mm = prevBit60(s.minLo, s.minHi, mi - 1);
    if (mm >= 0) return h * 3600 + mm * 60 + lastSec;
  }
  hh = prevBit(s.hours, h - 1);
  if (hh < 0) return -1;
  return hh * 3600 + highest60(s.minLo, s.minHi) * 60 + lastSec;
}

function yearAllowed(s: CronSchedule, y: number): boolean {
  const t = s.years;
  return t === null || (y >= FIRST_YEAR && y <= LAST_YEAR && t[y - FIRST_YEAR] === 1);
}

/**
 * Smallest matching civil second >= from (local seconds), or -1 when there is none up to the end of 2099.
 */
export function nextCivil(s: CronSchedule, from: number): number {
  let days = Math.floor(from / DAY_S);
  let sod = from - days * DAY_S;
  const p = civilFromDays(days);
  let y = Math.floor(p / 512);
  let m = (p >> 5) & 15;
  let d = p & 31;
  for (;;) {
    if (y > LAST_YEAR) return -1;
    if (!yearAllowed(s, y)) {
      do y++;
      while (y <= LAST_YEAR && !yearAllowed(s, y));
      if (y > LAST_YEAR) return -1;
      m = 1;
      d = 1;
      sod = 0;
    }
    const mm = nextBit(s.months, m);
    if (mm < 0) {
      y++;
      m = 1;
      d = 1;
      sod = 0;
      continue;
    }
    if (mm !== m) {
      m = mm;
      d = 1;
      sod = 0;
    }
    let dm = matchingDays(s, y, m) & (-1 << d);
    while (dm !== 0) {
      const dd = 31 - Math.clz32(dm & -dm);
      if (dd !== d) {
        d = dd;
        sod = 0;
      }
      const t = nextTimeOfDay(s, sod);
      if (t >= 0) {
        days = daysFromCivil(y, m, d);
        return days * DAY_S + t;
      }
      dm &= dm - 1;
      sod = 0;
    }
    m++;
    d = 1;
    sod = 0;
    if (m > 12) {
      m = 1;
      y++;
    }
  }
}

/** Largest matching civil second <= from (local seconds), or -1 when there is none back to 1970. */
export function prevCivil(s: CronSchedule, from: number): number {
  const days = Math.floor(from / DAY_S);
  let sod = from - days * DAY_S;
  const p = civilFromDays(days);
  let y = Math.floor(p / 512);
  let m = (p >> 5) & 15;
  let d = p & 31;
  const LAST_SOD = DAY_S - 1;
  if (y > LAST_YEAR) {
    y = LAST_YEAR;
    m = 12;
    d = 31;
    sod = LAST_SOD;
  }
  for (;;) {
    if (y < FIRST_YEAR) return -1;
    if (!yearAllowed(s, y)) {
      do y--;
      while (y >= FIRST_YEAR && !yearAllowed(s, y));
      if (y < FIRST_YEAR) return -1;
      m = 12;
      d = 31;
      sod = LAST_SOD;
    }
    const mm = prevBit(s.months, m);
    if (mm < 0) {
      y--;
      m = 12;
      d = 31;
      sod = LAST_SOD;
      continue;
    }
    if (mm !== m) {
      m = mm;
      d = 31;
      sod = LAST_SOD;
    }
    let dm = matchingDays(s, y, m) & (d >= 31 ? -1 : (2 << d) - 1);
    while (dm !== 0) {
      const dd = 31 - Math.clz32(dm);
      if (dd !== d) {
        d = dd;
        sod = LAST_SOD;
      }
      const t = prevTimeOfDay(s, sod);
      if (t >= 0) return daysFromCivil(y, m, d) * DAY_S + t;
      dm &= ~(1 << dd);
      sod = LAST_SOD;
    }
    m--;
    d = 31;
    sod = LAST_SOD;
    if (m < 1) {
      m = 12;
      y--;
    }
  }
}

/**
 * The calendar covers the civil years 1970-2099; one day either side holds every zone's local midnight of
 * 1970-01-01 and end of 2099. Searches from beyond it are clamped to it (nothing fires outside it).
 */
export const MIN_INSTANT_MS = -DAY_MS;
export const MAX_INSTANT_MS = Date.UTC(2100, 0, 1) + DAY_MS;
/** The largest magnitude a JS Date (and so Intl) accepts. */
const DATE_LIMIT_MS = 8.64e15;

/** Whether `ms` lies within the calendar's years (what `cronstable next --after` accepts). */
export function isSupportedInstant(ms: number): boolean {
  return ms >= MIN_INSTANT_MS && ms <= MAX_INSTANT_MS;
}

/**
 * NaN, infinities and instants no Date can hold are refused: they would turn the civil search into an
 * endless or meaningless loop. Returns the instant clamped into the calendar's range.
 */
function checkedInstant(ms: number, what: string): number {
  if (!(Math.abs(ms) <= DATE_LIMIT_MS))
    throw new ScheduleError(
      `${what} ${String(ms)} is not an instant the schedule engine can search from (its calendar covers 1970-01-01 to 2099-12-31)`,
      'instant-out-of-range',
    );
  return Math.min(MAX_INSTANT_MS, Math.max(MIN_INSTANT_MS, ms));
}

/** Whole local second (floor) of an instant in a zone. */
function localSecond(z: ZoneInfo, ms: number): number {
  return Math.floor(z.render(ms) / 1000);
}

/**
 * Next fire strictly after `afterMs` (spec 01 §5.7 + §5.8), or null when the schedule never fires again
 * (the search stops after 2099). A non-default DST policy (issue 15) takes its own search; absent or
 * first/shift runs the spec's unchanged loop.
 */
export function nextFire(s: CronSchedule, frame: Frame, after: number, dst?: DstPolicy): number | null {
  const afterMs = checkedInstant(after, 'the instant');
  if (frame.kind !== 'utc' && !isDefaultDstPolicy(dst))
    return nextFireWithPolicy(s, frameZone(frame), afterMs, dst!);
  // The calendar starts at local 1970-01-01 00:00 (a negative civil second would read as "no match").
  if (frame.kind === 'utc') {
    const m = nextCivil(s, Math.max(0, Math.floor(afterMs / 1000) + 1));
    return m < 0 ? null : m * 1000;
  }
  const z = frameZone(frame);
  let base = Math.max(0, localSecond(z, afterMs) + 1);
  for (;;) {
    const m = nextCivil(s, base);
    if (m < 0) return null;
    const u = z.resolve(m * 1000);
    if (u > afterMs) return u;
    // The match's first occurrence is not after `afterMs` (second leg of a fall-back hour): move on.
    const rendered = localSecond(z, u);
    base = Math.max(m, rendered) + 1;
  }
}

/**
 * Last fire strictly before `beforeMs` (mirror of nextFire, same DST policy), or null (search floor 1970).
 * Away from offset transitions that is the latest civil match whose instant is before `beforeMs`. Near one
 * (a gap can collapse matches, a repeated hour fires once) the fire chain is replayed forward from a point
 * before the transition, so the answer is exactly an instant nextFire would have produced.
 */
export function prevFire(s: CronSchedule, frame: Frame, before: number, dst?: DstPolicy): number | null {
  const beforeMs = checkedInstant(before, 'the instant');
  if (frame.kind !== 'utc' && !isDefaultDstPolicy(dst)) return prevFireWithPolicy(s, frame, beforeMs, dst!);
  if (beforeMs === MIN_INSTANT_MS) return null;
  if (frame.kind === 'utc') {
    const m = prevCivil(s, Math.ceil(beforeMs / 1000) - 1);
    return m < 0 ? null : m * 1000;
  }
  const z = frameZone(frame);
  // A label can resolve to an instant before `beforeMs` even when it reads later than beforeMs's own label
  // (first leg of a repeated hour), so the scan starts from the largest offset around.
  const hiOff = Math.max(
    z.offset(beforeMs - 2 * DAY_MS),
    z.offset(beforeMs),
    z.offset(beforeMs + 2 * DAY_MS),
  );
  let cursor = Math.ceil((beforeMs + hiOff) / 1000);
  let u: number;
  for (;;) {
    const m = prevCivil(s, cursor);
    if (m < 0) return null;
    u = z.resolve(m * 1000);
    if (u < beforeMs) break;
    cursor = m - 1;
  }
  // Only a gap just before u can make u a collapsed match or hide a later fire with an earlier label (its
  // labels resolve into [transition, transition + gap)); a repeated hour only drops labels, which the scan
  // above already skips. Then the fire chain is replayed from before the transition.
  const t = z.lastTransition(u - TRANSITION_REACH_MS, u);
  if (t === null || u - t.at > Math.abs(t.delta) + 3_600_000) return u;
  const start = t.at - Math.abs(t.delta) - 3_600_000;
  let last: number | null = null;
  for (let f = nextFire(s, frame, start); f !== null && f < beforeMs; f = nextFire(s, frame, f)) last = f;
  return last ?? prevFire(s, frame, start + 1);
}

/**
 * prevFire under a non-default policy: the policy only changes fires within a few hours of an offset
 * transition, so the spec's previous fire is taken and, when a transition is near it, the policy's fire
 * chain is replayed forward from before that transition.
 */
function prevFireWithPolicy(s: CronSchedule, frame: Frame, beforeMs: number, dst: DstPolicy): number | null {
  const z = frameZone(frame);
  let bound = beforeMs;
  let replayed: number | null = null;
  for (;;) {
    const cand = prevFire(s, frame, bound);
    if (cand === null) return null;
    const t = z.lastTransition(cand - TRANSITION_REACH_MS, cand + TRANSITION_REACH_MS);
    if (t === null || t.at === replayed) return cand;
    const start = t.at - Math.abs(t.delta) - 3_600_000;
    let last: number | null = null;
    for (let f = nextFire(s, frame, start, dst); f !== null && f < bound; f = nextFire(s, frame, f, dst))
      last = f;
    if (last !== null) return last;
    replayed = t.at;
    bound = Math.min(bound, start + 1);
  }
}

/** Whether the instant's civil time (sub-second ignored) matches every field and the day rule. */
export function matchesInstant(s: CronSchedule, frame: Frame, atMs: number): boolean {
  checkedInstant(atMs, 'the instant');
  const local = frame.kind === 'utc' ? Math.floor(atMs / 1000) : localSecond(frameZone(frame), atMs);
  const days = Math.floor(local / DAY_S);
  const sod = local - days * DAY_S;
  const p = civilFromDays(days);
  const y = Math.floor(p / 512);
  const m = (p >> 5) & 15;
  const d = p & 31;
  if (s.years !== null && !yearAllowed(s, y)) return false;
  if ((s.months & (1 << m)) === 0) return false;
  if ((matchingDays(s, y, m) & (1 << d)) === 0) return false;
  const h = (sod / 3600) | 0;
  const mi = ((sod / 60) | 0) % 60;
  return (s.hours & (1 << h)) !== 0 && hasBit60(s.minLo, s.minHi, mi) && hasBit60(s.secLo, s.secHi, sod % 60);
}

/** What `occurrences` searches: fires up to `untilMs` (inclusive), at most `limit` of them. */
export interface OccurrenceQuery {
  untilMs?: number;
  limit?: number;
  dst?: DstPolicy;
}

/**
 * Fire instants strictly after `fromMs`, ascending, up to `untilMs` (inclusive) and at most `limit` of them
 * (default 1000 when untilMs is absent). After each yield the civil search continues from the rendered label of
 * the yielded instant: a DST-gap match fires once at its shifted time and a repeated hour fires once.
 */
export function occurrences(s: CronSchedule, frame: Frame, fromMs: number, opts: OccurrenceQuery): number[] {
  const out: number[] = [];
  collectFires(s, frame, fromMs, opts, out, Number.POSITIVE_INFINITY);
  return out;
}

/**
 * The fires `occurrences` lists, written into `out` from index 0 (at most `out.length` of them); returns
 * how many. Allocates nothing: for a caller that walks many schedules in turn (the calendar feed).
 */
export function occurrencesInto(
  s: CronSchedule,
  frame: Frame,
  fromMs: number,
  opts: OccurrenceQuery,
  out: Float64Array,
): number {
  return collectFires(s, frame, fromMs, opts, out, out.length);
}

function collectFires(
  s: CronSchedule,
  frame: Frame,
  fromMs: number,
  opts: OccurrenceQuery,
  out: number[] | Float64Array,
  room: number,
): number {
  checkedInstant(fromMs, 'the start instant');
  const until = opts.untilMs ?? Number.POSITIVE_INFINITY;
  const asked = opts.limit ?? (opts.untilMs === undefined ? 1000 : Number.POSITIVE_INFINITY);
  if (Number.isNaN(until) || Number.isNaN(asked))
    throw new ScheduleError(
      'occurrences: the end instant and the limit must be numbers',
      'instant-out-of-range',
    );
  const limit = Math.min(asked, room);
  let n = 0;
  if (limit <= 0) return n;
  let u = nextFire(s, frame, fromMs, opts.dst);
  if (frame.kind !== 'utc' && !isDefaultDstPolicy(opts.dst)) {
    while (u !== null && u <= until && n < limit) {
      out[n++] = u;
      u = nextFire(s, frame, u, opts.dst);
    }
    return n;
  }
  if (frame.kind === 'utc') {
    while (u !== null && u <= until && n < limit) {
      out[n++] = u;
      const m = nextCivil(s, u / 1000 + 1);
      u = m < 0 ? null : m * 1000;
    }
    return n;
  }
  const z = frameZone(frame);
  while (u !== null && u <= until && n < limit) {
    out[n++] = u;
    let base = localSecond(z, u) + 1;
    let next: number | null = null;
    for (;;) {
      const m = nextCivil(s, base);
      if (m < 0) break;
      const v = z.resolve(m * 1000);
      if (v > u) {
        next = v;
        break;
      }
      base = m + 1;
    }
    u = next;
  }
  return n;
}

/**
 * Next fire strictly after `after` under a non-default policy (zone frames). Two label scans:
 * (i) from the label after `after`, the first label with a fire after it (as spec 01 §5.7 does, so a
 * shifted gap fire still collapses the matches it jumps over); (ii) when `last`/`both` and a fall-back
 * lies ahead, the labels of its second leg, which read earlier than `after`'s own label.
 */
function nextFireWithPolicy(s: CronSchedule, z: ZoneInfo, after: number, p: DstPolicy): number | null {
  let best: number | null = null;
  let base = Math.max(0, Math.floor((after + z.offset(after)) / 1000) + 1);
  for (;;) {
    const m = nextCivil(s, base);
    if (m < 0) break;
    const f = fireOfLabel(z, m, after, p);
    if (f !== null) {
      best = f.at;
      break;
    }
    base = m + 1;
  }
  if (p.repeated === 'first') return best;
  const limit = best ?? after + TRANSITION_REACH_MS;
  const t = z.lastTransition(after, Math.min(limit, after + TRANSITION_REACH_MS));
  if (t === null || t.delta >= 0) return best;
  // Second leg [t.at, t.at - delta): labels [t.at + oAfter, t.at + oBefore).
  const oAfter = z.offset(t.at);
  const legEnd = Math.floor((t.at - t.delta + oAfter) / 1000);
  let b2 = Math.max(0, Math.floor((t.at + oAfter) / 1000));
  for (;;) {
    const m = nextCivil(s, b2);
    if (m < 0 || m >= legEnd) break;
    const u = m * 1000 - oAfter;
    if (u > after) {
      if (best === null || u < best) best = u;
      break;
    }
    b2 = m + 1;
  }
  return best;
}
