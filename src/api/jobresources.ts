// Live CPU and memory of `monitorResources` jobs (spec 06 §5.6 `/jobs/{name}/resources`): while the web server
// runs, each running instance's process tree is read from /proc at the job's interval; a finished instance's
// series is kept (newest `history` per job) for the drawer's Resources tab. Linux only: elsewhere /proc is absent
// and the route answers with no samples, as before.
import { readdirSync, readFileSync } from 'node:fs';
import type { JobConfig } from '../config/types.ts';
import { CLK_TCK, monitorSettings, PAGE_SIZE, type ProcStat, parseProcStat } from '../exec/procstat.ts';
import type { SchedulerEvent } from '../scheduler/events.ts';
import type { RunningRun } from '../scheduler/view.ts';
import type {
  ApiLiveResources,
  ApiResourceStats,
  ApiResourceSummary,
  JobRow,
  ResourceSeries,
} from './wire/jobs.schema.ts';

/** A `/jobs` row's `running_resources`: the newest sample of each running instance, summed. */
export type RunningResources = NonNullable<JobRow['running_resources']>;

/** Points kept per instance: at 1 s, the last 10 minutes. */
const MAX_SERIES = 600;
/** The sampler's own beat; each job is sampled when its interval has passed. */
const BEAT_MS = 250;

/**
 * CPU ticks and resident pages of a process and all its descendants. A descendant that has exited
 * and been waited for is no longer in the tree: its CPU lives on in its parent's cutime/cstime
 * (`childTicks`), so each process counts its own ticks plus its reaped children's.
 */
export function treeUsage(
  root: number,
  procs: ReadonlyMap<number, ProcStat>,
): { ticks: number; rssPages: number } | null {
  if (!procs.has(root)) return null;
  const children = new Map<number, number[]>();
  for (const p of procs.values()) {
    const list = children.get(p.ppid);
    if (list) list.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  let ticks = 0;
  let rssPages = 0;
  const todo = [root];
  const seen = new Set<number>();
  while (todo.length > 0) {
    const pid = todo.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const p = procs.get(pid);
    if (!p) continue;
    ticks += p.ticks + p.childTicks;
    rssPages += p.rssPages;
    for (const c of children.get(pid) ?? []) todo.push(c);
  }
  return { ticks, rssPages };
}

/** Every process of the host from /proc (empty where there is no /proc). */
export function readProcs(): Map<number, ProcStat> {
  const out = new Map<number, ProcStat>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const p = parseProcStat(readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (p) out.set(p.pid, p);
    } catch {
      // exited between the listing and the read
    }
  }
  return out;
}

/** Whether this kernel has /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN); null until first seen. */
let childrenFiles: boolean | null = null;

/**
 * CPU ticks and resident pages of a process tree read from /proc. Follows the `children` files from the root, so
 * a sample costs a few reads per process of the tree rather than a scan of every process on the host; kernels
 * without those files get the full scan.
 */
export function readTreeUsage(root: number): { ticks: number; rssPages: number } | null {
  if (childrenFiles === false) return treeUsage(root, readProcs());
  const procs = new Map<number, ProcStat>();
  const todo = [root];
  while (todo.length > 0) {
    const pid = todo.pop()!;
    if (procs.has(pid)) continue;
    let stat: ProcStat | null;
    let tasks: string[];
    try {
      stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // exited meanwhile
    }
    if (!stat) continue;
    procs.set(pid, stat);
    for (const tid of tasks) {
      let text: string;
      try {
        text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
        childrenFiles = true;
      } catch (e) {
        if (childrenFiles === null && (e as NodeJS.ErrnoException).code === 'ENOENT' && pid === root) {
          childrenFiles = false;
          return treeUsage(root, readProcs());
        }
        continue;
      }
      for (const child of text.split(' ')) if (child.trim() !== '') todo.push(Number(child));
    }
  }
  return procs.size === 0 ? null : treeUsage(root, procs);
}

/** A running instance's samples so far (the dashboard's `ApiLiveResources`, with the start as ISO text). */
export interface LiveResources extends ApiLiveResources {
  started_at: string;
}

export interface SampledRun {
  /** The scheduler's run id (joins the run record of `/jobs/{name}/runs`). */
  run_id: string;
  started_at: string;
  finished_at: string;
  pid: number | null;
  resources: RunResourceSummary & { series: ResourceSeries };
}

export type RunResourceSummary = ApiResourceSummary;

/** avg / max / last CPU seconds and RSS over the monitored runs of a list (oldest first); null when none. */
export function resourceStats(runs: readonly (RunResourceSummary | null | undefined)[]): ApiResourceStats {
  const cpu = runs.flatMap((r) => (r && r.cpu_total_seconds !== null ? [r.cpu_total_seconds] : []));
  const rss = runs.flatMap((r) => (r && r.max_rss_bytes !== null ? [r.max_rss_bytes] : []));
  const avg = (v: number[]) => (v.length > 0 ? v.reduce((a, b) => a + b, 0) / v.length : null);
  const max = (v: number[]) => (v.length > 0 ? Math.max(...v) : null);
  const last = (v: number[]) => (v.length > 0 ? v[v.length - 1]! : null);
  return {
    avg_cpu_seconds: avg(cpu),
    max_cpu_seconds: max(cpu),
    last_cpu_seconds: last(cpu),
    avg_rss_bytes: avg(rss),
    max_rss_bytes: max(rss),
    last_rss_bytes: last(rss),
  };
}

interface Instance {
  runId: string;
  startedAt: number;
  pid: number | null;
  lastAt: number;
  lastCpu: number | null;
  maxRss: number;
  series: ResourceSeries;
  current: LiveResources['current'];
}

export interface SamplerSource {
  jobNames(): string[];
  job(name: string): JobConfig | undefined;
  running(name: string): RunningRun[];
  /** The scheduler's event stream: with it, the sampler beats only while a monitored run is live. */
  subscribe?(fn: (event: SchedulerEvent) => void): () => void;
}

/** After a monitored run starts, keep beating this long even before `running()` lists it. */
const WAKE_GRACE_MS = 2_000;

export class JobResourceSampler {
  private readonly live = new Map<string, Map<string, Instance>>();
  private readonly done = new Map<string, SampledRun[]>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private awakeUntil = 0;

  constructor(
    private readonly source: SamplerSource,
    private readonly tree: (root: number) => { ticks: number; rssPages: number } | null = readTreeUsage,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Starts sampling. With the scheduler's event stream the beat runs only while a monitored run
   * is live (a node whose jobs are idle, or that monitors nothing, is never woken); without it,
   * the beat runs until stop().
   */
  start(): void {
    if (this.source.subscribe && !this.unsubscribe) {
      this.unsubscribe = this.source.subscribe((e) => {
        if (e.type === 'run-started' && monitorSettings(e.job.monitorResources).enabled) this.wake();
      });
    }
    // A monitored run may already be live (the web server starts after @reboot jobs).
    this.wake();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.sleep();
  }

  /** Whether the beat is running (tests; an idle node keeps it off). */
  get beating(): boolean {
    return this.timer !== null;
  }

  private wake(): void {
    this.awakeUntil = this.now() + WAKE_GRACE_MS;
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.tick();
      if (this.unsubscribe && this.live.size === 0 && this.now() >= this.awakeUntil) this.sleep();
    }, BEAT_MS);
    this.timer.unref();
  }

  private sleep(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One beat: sample every monitored running instance whose interval has passed; close finished ones. */
  tick(): void {
    const t = this.now();
    for (const name of this.source.jobNames()) {
      const settings = monitorSettings(this.source.job(name)?.monitorResources);
      const known = this.live.get(name);
      if (!settings.enabled) {
        if (known) this.live.delete(name);
        continue;
      }
      const running = this.source.running(name);
      if (running.length === 0 && !known) continue;
      const instances = known ?? new Map<string, Instance>();
      this.live.set(name, instances);
      const current = new Set(running.map((r) => r.runId));
      for (const [id, inst] of instances) {
        if (!current.has(id)) {
          instances.delete(id);
          this.finish(name, inst, t, settings.history);
        }
      }
      for (const r of running) {
        let inst = instances.get(r.runId);
        if (!inst) {
          inst = {
            runId: r.runId,
            startedAt: r.startedAt,
            pid: r.pid,
            lastAt: 0,
            lastCpu: null,
            maxRss: 0,
            series: [],
            current: null,
          };
          instances.set(r.runId, inst);
        }
        inst.pid = r.pid;
        if (r.pid === null || t - inst.lastAt < settings.interval * 1000 - BEAT_MS / 2) continue;
        const usage = this.tree(r.pid);
        if (!usage) continue;
        const cpu = usage.ticks / CLK_TCK;
        const rss = usage.rssPages * PAGE_SIZE;
        const dt = (t - inst.lastAt) / 1000;
        const percent = inst.lastCpu === null || dt <= 0 ? 0 : Math.max(0, ((cpu - inst.lastCpu) / dt) * 100);
        inst.lastAt = t;
        inst.lastCpu = cpu;
        inst.maxRss = Math.max(inst.maxRss, rss);
        inst.current = { cpu_seconds: cpu, cpu_percent: Math.round(percent * 10) / 10, rss_bytes: rss };
        inst.series.push([t / 1000, inst.current.cpu_percent, rss]);
        if (inst.series.length > MAX_SERIES) inst.series.splice(0, inst.series.length - MAX_SERIES);
      }
      if (instances.size === 0) this.live.delete(name);
    }
  }

  private finish(name: string, inst: Instance, t: number, keep: number): void {
    if (keep <= 0) return;
    const list = this.done.get(name) ?? [];
    list.push({
      run_id: inst.runId,
      started_at: new Date(inst.startedAt).toISOString(),
      finished_at: new Date(t).toISOString(),
      pid: inst.pid,
      resources: {
        cpu_total_seconds: inst.lastCpu,
        max_rss_bytes: inst.series.length > 0 ? inst.maxRss : null,
        samples: inst.series.length,
        series: inst.series,
      },
    });
    if (list.length > keep) list.splice(0, list.length - keep);
    this.done.set(name, list);
  }

  /** Running instances of a job with their samples so far. */
  liveOf(name: string): LiveResources[] {
    return [...(this.live.get(name)?.values() ?? [])].map((i) => ({
      started_at: new Date(i.startedAt).toISOString(),
      pid: i.pid,
      current: i.current,
      series: i.series,
    }));
  }

  /** The running instances' newest samples summed (spec 06 §5.4 `running_resources`); null before the first. */
  runningOf(name: string): RunningResources | null {
    let sum: RunningResources | null = null;
    for (const i of this.live.get(name)?.values() ?? []) {
      if (!i.current) continue;
      sum ??= { cpu_percent: 0, cpu_seconds: 0, rss_bytes: 0, instances: 0 };
      sum.cpu_percent += i.current.cpu_percent;
      sum.cpu_seconds += i.current.cpu_seconds;
      sum.rss_bytes += i.current.rss_bytes;
      sum.instances++;
    }
    if (sum) sum.cpu_percent = Math.round(sum.cpu_percent * 10) / 10;
    return sum;
  }

  /** Resource summaries of the sampled runs still kept, by run id (for `/jobs/{name}/runs`). */
  summariesOf(name: string): Map<string, RunResourceSummary> {
    const out = new Map<string, RunResourceSummary>();
    for (const r of this.done.get(name) ?? []) {
      const { cpu_total_seconds, max_rss_bytes, samples } = r.resources;
      out.set(r.run_id, { cpu_total_seconds, max_rss_bytes, samples });
    }
    return out;
  }

  /** The newest `n` sampled runs of a job, oldest first. */
  runsOf(name: string, n: number): SampledRun[] {
    const list = this.done.get(name) ?? [];
    return n <= 0 ? [] : list.slice(-n);
  }
}
