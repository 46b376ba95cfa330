// What the benches read of a process from /proc: resident memory, CPU time, children, and the
// daemon-plus-helpers total (the daemon's own long-lived children, not its jobs). Linux only.
import { readdirSync, readFileSync } from 'node:fs';
import { CLK_TCK, parseProcStat } from '../src/exec/procstat.ts';

/** A memory field of /proc/<pid>/status in MB (VmRSS now, VmHWM the peak); 0 once the process is gone. */
export function rssMb(pid: number, field = 'VmRSS'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** User + system CPU seconds of the process itself; null once it is gone. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return stat ? stat.ticks / CLK_TCK : null;
  } catch {
    return null;
  }
}

/** The pids whose parent is `pid`, by a scan of /proc. */
export function childrenOf(pid: number): number[] {
  const kids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (parseProcStat(readFileSync(`/proc/${entry}/stat`, 'utf8'))?.ppid === pid) kids.push(Number(entry));
    } catch {
      // The process went away while we looked.
    }
  }
  return kids;
}

/**
 * RSS of the daemon plus those of its direct children that `keep` accepts by their NUL-separated
 * command line (its long-lived helpers, not its jobs), in MB.
 */
export function nodeRssMb(pid: number, keep: (cmdline: string, child: number) => boolean): number {
  let total = rssMb(pid);
  let children: string[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
  } catch {
    // no children file: only the daemon counts
  }
  for (const c of children) {
    const child = Number(c);
    if (!child) continue;
    try {
      if (keep(readFileSync(`/proc/${child}/cmdline`, 'utf8'), child)) total += rssMb(child);
    } catch {
      // the child exited between the two reads
    }
  }
  return total;
}
