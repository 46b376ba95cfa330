// One reader of /proc/<pid>/stat and of the `monitorResources` switch, shared by the job sampler
// behind /jobs/{name}/resources and the DAG task sampler (spec 02 §monitorResources, spec 04 §11).
import type { MonitorResources } from '../config/types.ts';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on every Linux ABI Node runs on). */
export const CLK_TCK = 100;
export const PAGE_SIZE = 4096;

/** The fields of /proc/<pid>/stat the samplers need. */
export interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  /** utime + stime of the process itself, clock ticks */
  ticks: number;
  /** cutime + cstime: the reaped children the process waited for, clock ticks */
  childTicks: number;
  rssPages: number;
}

/**
 * One /proc/<pid>/stat line, or null. The command name (field 2) may hold spaces and parentheses,
 * so fields are counted from the last ')'.
 */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  // After ')': state(3) ppid(4) pgrp(5) … utime(14) stime(15) cutime(16) cstime(17) … rss(24).
  const f = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const at = (field: number) => Number(f[field - 3]);
  const out = {
    pid,
    ppid: at(4),
    pgrp: at(5),
    ticks: at(14) + at(15),
    childTicks: at(16) + at(17),
    rssPages: at(24),
  };
  return Object.values(out).every(Number.isFinite) ? out : null;
}

/** The effective monitorResources settings (spec 02: `true` = every 1 s, 20 runs kept). */
export function monitorSettings(m: boolean | Partial<MonitorResources> | null | undefined): MonitorResources {
  if (m === true) return { enabled: true, interval: 1, history: 20 };
  if (m === false || m === undefined || m === null) return { enabled: false, interval: 1, history: 20 };
  return {
    enabled: m.enabled !== false,
    interval: typeof m.interval === 'number' && m.interval > 0 ? m.interval : 1,
    history: typeof m.history === 'number' ? m.history : 20,
  };
}
