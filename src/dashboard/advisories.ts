// Schedule-tab advisories computed in the browser with the daemon's engine (spec 01 §6.2, spec 06 §9.2):
// runs may overlap, thundering herd, DST transition ahead.
import { type CompiledJob, nextFireOf, nextFiresOf, zoneOffset } from './engine.ts';
import type { ApiHistoryEntry } from './types.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------------------------
// Runs may overlap / pack tightly

export interface OverlapAdvisory {
  kind: 'overlap' | 'tight';
  /** smallest gap between consecutive upcoming fires, seconds */
  minGapSeconds: number;
  /** longest recent run, seconds */
  longestSeconds: number;
}

/**
 * Compares the tightest gap between the next `sample` fires with the longest recent run: a run as long as the
 * gap means the next fire comes while the previous run is still going ("overlap"); 70 % or more of it is "tight".
 */
export function overlapAdvisory(
  c: CompiledJob,
  history: readonly ApiHistoryEntry[],
  nowMs: number,
  sample = 48,
): OverlapAdvisory | null {
  let longest = 0;
  for (const h of history) if (h.duration !== null && h.duration > longest) longest = h.duration;
  if (longest <= 0) return null;
  const fires = nextFiresOf(c, nowMs, sample);
  if (fires.length < 2) return null;
  let minGap = Number.POSITIVE_INFINITY;
  for (let i = 1; i < fires.length; i++) minGap = Math.min(minGap, fires[i]! - fires[i - 1]!);
  const gap = minGap / 1000;
  if (longest >= gap) return { kind: 'overlap', minGapSeconds: gap, longestSeconds: longest };
  if (longest >= 0.7 * gap) return { kind: 'tight', minGapSeconds: gap, longestSeconds: longest };
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Thundering herd

export interface HerdCandidate {
  name: string;
  enabled: boolean;
  compiled: CompiledJob;
}

export interface HerdAdvisory {
  /** start of the shared minute (epoch ms) */
  minuteStart: number;
  /** other jobs whose next fire falls in that minute, in scan order */
  peers: string[];
  /** how many other jobs were examined, and whether the cap cut the scan short */
  scanned: number;
  capped: boolean;
}

export const HERD_SCAN_CAP = 200;

/**
 * Other enabled jobs whose next fire lands in the same minute as this job's next fire. At most `cap` other jobs
 * are examined (in list order) so a 3k-job fleet stays cheap. Returns null when this job has no next fire;
 * `peers` may be empty.
 */
export function thunderingHerd(
  self: HerdCandidate,
  all: readonly HerdCandidate[],
  nowMs: number,
  cap = HERD_SCAN_CAP,
): HerdAdvisory | null {
  const mine = nextFireOf(self.compiled, nowMs);
  if (mine === null) return null;
  const minuteStart = Math.floor(mine / MINUTE_MS) * MINUTE_MS;
  const minuteEnd = minuteStart + MINUTE_MS;
  const peers: string[] = [];
  let scanned = 0;
  let capped = false;
  for (const other of all) {
    if (other.name === self.name || !other.enabled || other.compiled.sched === null) continue;
    if (scanned >= cap) {
      capped = true;
      break;
    }
    scanned++;
    const next = nextFireOf(other.compiled, nowMs);
    if (next !== null && next >= minuteStart && next < minuteEnd) peers.push(other.name);
  }
  return { minuteStart, peers, scanned, capped };
}

/** "a, b, c and 2 more" (at most `shown` names). */
export function nameList(names: readonly string[], shown = 4): string {
  if (names.length <= shown) {
    if (names.length <= 1) return names.join('');
    return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  }
  return `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`;
}

// ---------------------------------------------------------------------------------------------------------------
// DST transition ahead

export interface DstAdvisory {
  zone: string;
  direction: 'forward' | 'back';
  /** first instant with the new offset (to the minute) */
  at: number;
  /** local date of the change in the zone, YYYY-MM-DD */
  localDate: string;
  /** offset change in minutes (positive = clocks go forward) */
  deltaMinutes: number;
}

/**
 * For a job in an explicit IANA zone whose hour field is restricted: the first UTC-offset change within
 * `horizonDays`, found by stepping a day at a time and then bisecting to the minute.
 */
export function dstAhead(c: CompiledJob, nowMs: number, horizonDays = 400): DstAdvisory | null {
  if (c.frame.kind !== 'zone' || c.sched === null || !c.hourRestricted) return null;
  const zone = c.frame.zone;
  const start = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
  const before = zoneOffset(zone, start);
  let lo = start;
  let hi = -1;
  for (let d = 1; d <= horizonDays; d++) {
    const t = start + d * DAY_MS;
    if (zoneOffset(zone, t) !== before) {
      hi = t;
      break;
    }
    lo = t;
  }
  if (hi < 0) return null;
  // offset(lo) === before, offset(hi) !== before: narrow to the first minute with the new offset.
  while (hi - lo > MINUTE_MS) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS;
    if (zoneOffset(zone, mid) === before) lo = mid;
    else hi = mid;
  }
  const after = zoneOffset(zone, hi);
  const local = new Date(hi + after);
  const localDate = `${local.getUTCFullYear()}-${String(local.getUTCMonth() + 1).padStart(2, '0')}-${String(
    local.getUTCDate(),
  ).padStart(2, '0')}`;
  return {
    zone,
    direction: after > before ? 'forward' : 'back',
    at: hi,
    localDate,
    deltaMinutes: Math.round((after - before) / MINUTE_MS),
  };
}

/**
 * The advisory's sentence. A job with a non-default DST policy (issue 15) is told what its policy does on
 * that change; the default keeps the general warning.
 */
export function dstAdvisoryText(a: DstAdvisory, dst: CompiledJob['dst']): string {
  const head = `${a.zone} shifts clocks ${a.direction} on ${a.localDate}`;
  if (dst.repeated === 'first' && dst.skipped === 'shift')
    return `${head}; a fixed local time near the change may be skipped or run twice.`;
  if (a.direction === 'forward')
    return dst.skipped === 'skip'
      ? `${head}; a local time the jump skips does not run that day (dst.skipped: skip).`
      : `${head}; a local time the jump skips runs at the shifted time (dst.skipped: shift).`;
  return dst.repeated === 'both'
    ? `${head}; a local time that repeats runs on both occurrences (dst.repeated: both).`
    : dst.repeated === 'last'
      ? `${head}; a local time that repeats runs on its second occurrence only (dst.repeated: last).`
      : `${head}; a local time that repeats runs on its first occurrence only.`;
}
