// When a process started, from /proc (Linux), to tell a surviving job process from a recycled pid
// (spec 09 §9.5): /proc/<pid>/stat field 22 (start time, clock ticks after boot) plus `btime` of
// /proc/stat (boot, epoch seconds).
import { readFileSync } from 'node:fs';
import { CLK_TCK } from './procstat.ts';

/** Field 22 of a /proc/<pid>/stat line (counted after the command name's last ')'), or null. */
export function startTicksOf(statLine: string): number | null {
  const close = statLine.lastIndexOf(')');
  if (close < 0) return null;
  const ticks = Number(
    statLine
      .slice(close + 1)
      .trim()
      .split(/\s+/)[22 - 3],
  );
  return Number.isFinite(ticks) ? ticks : null;
}

/** The `btime` line of /proc/stat, epoch seconds, or null. */
export function bootTimeOf(procStat: string): number | null {
  const m = /^btime\s+(\d+)$/m.exec(procStat);
  return m ? Number(m[1]) : null;
}

/** The process's start, epoch ms; null when unreadable (which reads as "could be the same process"). */
export function processStartMs(pid: number): number | null {
  try {
    const ticks = startTicksOf(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    const boot = bootTimeOf(readFileSync('/proc/stat', 'utf8'));
    return ticks === null || boot === null ? null : boot * 1000 + (ticks * 1000) / CLK_TCK;
  } catch {
    return null;
  }
}
