// The dashboard's times, all in UTC like its header clock (Q11: the reference mixed a UTC header with local
// log times, history times and file names, none of them labelled).
import { formatUtcClock } from '../../dashboard/format.ts';

const p2 = (n: number) => String(n).padStart(2, '0');

/** `HH:MM:SS` in UTC (log lines). */
export const utcClock = formatUtcClock;

/** `MM-DD HH:MM:SS` in UTC (history and resources rows). */
export function utcStamp(ms: number): string {
  const d = new Date(ms);
  return `${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ${formatUtcClock(ms)}`;
}

/** `YYYYmmdd-HHMMSS` in UTC, for the names of files the dashboard writes (saved logs, incident write-ups). */
export function fileStamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())}-${formatUtcClock(ms).replaceAll(':', '')}`;
}
