// The header's connection state (spec 06 §9.2, spec 08 §3.3 "staleness"): from the poll's bookkeeping and the
// clock alone, so the web header, the terminal header and their tests agree on when data stops being trusted;
// and the wallboards' stale-data banner (web STALE DATA, terminal NO SIGNAL), one longer rule for both faces.

export type Connection = 'connecting' | 'live' | 'paused' | 'stale' | 'lost' | 'locked';

export const CONNECTION_TEXT: Record<Connection, string> = {
  connecting: 'connecting',
  live: 'live',
  paused: 'paused',
  stale: 'stale',
  lost: 'no signal',
  locked: 'locked',
};

export interface PollStatus {
  /** a 401 stopped polling until a token is entered */
  locked: boolean;
  /** epoch ms of the last answered `/jobs`, 0 before the first */
  fetchedAt: number;
  /** the latest poll failed */
  failed: boolean;
  /** the refresh period in ms; Infinity when paused */
  intervalMs: number;
}

/** How long an answer stays live: three refresh periods plus 2 s of slack, at least 10 s. */
export function liveForMs(intervalMs: number): number {
  return Math.max(10_000, intervalMs * 3 + 2000);
}

/** Whether data fetched at `fetchedAt` is too old to trust at `now` (never before the first answer). */
export function isStale(now: number, fetchedAt: number, intervalMs: number): boolean {
  return fetchedAt !== 0 && now - fetchedAt > liveForMs(intervalMs);
}

/**
 * locked > (no answer yet: lost or connecting) > lost > stale > live; with refreshing paused, data that
 * would be live or stale reads "paused" (nobody asked for fresh data).
 */
export function connectionState(p: PollStatus, now: number): Connection {
  let conn: Connection;
  if (p.locked) conn = 'locked';
  else if (p.fetchedAt === 0) conn = p.failed ? 'lost' : 'connecting';
  else if (p.failed) conn = 'lost';
  else conn = isStale(now, p.fetchedAt, p.intervalMs) ? 'stale' : 'live';
  return !Number.isFinite(p.intervalMs) && (conn === 'stale' || conn === 'live') ? 'paused' : conn;
}

/** A wallboard never calls data stale sooner than this. */
export const STALE_MIN_MS = 15_000;
/** A paused refresh still lets the data age: it counts as this interval (spec 08 §3.3). */
export const PAUSED_INTERVAL_MS = 3000;

/**
 * How old the data on a wallboard may get before its banner says so: 15 s or two refresh intervals, whichever
 * is longer (spec 08 §3.3). `intervalMs` 0 or Infinity = paused, counted as 3 s: the screen still shows old data.
 */
export function staleAfterMs(intervalMs: number): number {
  const every = intervalMs > 0 && Number.isFinite(intervalMs) ? intervalMs : PAUSED_INTERVAL_MS;
  return Math.max(STALE_MIN_MS, 2 * every);
}

/** Age of the data when it is stale at `now`, else null (null before the first answer: nothing is shown yet). */
export function staleAge(now: number, fetchedAt: number, intervalMs: number): number | null {
  if (fetchedAt === 0) return null;
  const age = now - fetchedAt;
  return age > staleAfterMs(intervalMs) ? age : null;
}

/** Spec 08 §3.3: no good `/jobs` yet, or the last one too old (zen waits, the wallboard says NO SIGNAL). */
export function dataStale(now: number, fetchedAt: number, intervalMs: number): boolean {
  return fetchedAt === 0 || staleAge(now, fetchedAt, intervalMs) !== null;
}
