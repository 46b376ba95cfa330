// Resource monitoring of a task's process tree (spec 04 §11, `monitorResources`): a task runs in
// its own process group, so every `interval` seconds we sum CPU time and resident memory over the
// live members of that group from /proc. CPU includes the group's reaped children (the kernel adds
// them to their waiting parent's cutime/cstime), so the last sample is the tree's CPU so far; RSS
// is the peak over the samples. Best effort: a task shorter than one interval reports its first
// sample only, and where /proc is missing nothing is recorded.
import { readdirSync, readFileSync } from 'node:fs';
import type { MonitorResources } from '../../config/types.ts';
import { CLK_TCK, monitorSettings, PAGE_SIZE, type ProcStat, parseProcStat } from '../../exec/procstat.ts';
import type { Clock, TimerHandle } from '../../util/clock.ts';

/** What an entry's `resources` holds (§4.3): CPU seconds and peak RSS of the attempt's tree. */
export interface TaskResources {
  cpuSeconds: number;
  maxRssBytes: number;
  samples: number;
}

/** Whether `monitorResources` is on for a task, and its sampling interval in seconds. */
export function taskMonitor(m: boolean | Partial<MonitorResources>): { interval: number } | null {
  const settings = monitorSettings(m);
  return settings.enabled ? { interval: Math.max(0.1, settings.interval) } : null;
}

/** Sums the group's members now: CPU seconds and RSS bytes (null when /proc cannot be read). */
export function sampleGroup(
  pgid: number,
  procDir = '/proc',
): { cpuSeconds: number; rssBytes: number } | null {
  let names: string[];
  try {
    names = readdirSync(procDir);
  } catch {
    return null;
  }
  let ticks = 0;
  let pages = 0;
  let members = 0;
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    let st: ProcStat | null;
    try {
      st = parseProcStat(readFileSync(`${procDir}/${name}/stat`, 'latin1'));
    } catch {
      continue; // the process exited between the listing and the read
    }
    if (!st || st.pgrp !== pgid) continue;
    members++;
    ticks += st.ticks + st.childTicks;
    pages += st.rssPages;
  }
  if (members === 0) return null;
  return { cpuSeconds: ticks / CLK_TCK, rssBytes: pages * PAGE_SIZE };
}

/** Samples one process group every `intervalS` seconds until stopped. */
export class GroupSampler {
  private timer: TimerHandle | null = null;
  private result: TaskResources | null = null;
  private stopped = false;

  constructor(
    private readonly pgid: number,
    private readonly intervalS: number,
    private readonly clock: Clock,
    private readonly sample: (pgid: number) => { cpuSeconds: number; rssBytes: number } | null = sampleGroup,
  ) {
    this.tick();
  }

  private tick(): void {
    if (this.stopped) return;
    const s = this.sample(this.pgid);
    if (s) {
      const r = this.result;
      this.result = {
        cpuSeconds: Math.max(r?.cpuSeconds ?? 0, s.cpuSeconds),
        maxRssBytes: Math.max(r?.maxRssBytes ?? 0, s.rssBytes),
        samples: (r?.samples ?? 0) + 1,
      };
    }
    this.timer = this.clock.setTimer(() => this.tick(), this.intervalS * 1000);
  }

  /** Stops sampling; the attempt's resources, or null when no sample could be taken. */
  stop(): TaskResources | null {
    this.stopped = true;
    if (this.timer) this.clock.clearTimer(this.timer);
    this.timer = null;
    return this.result;
  }
}
