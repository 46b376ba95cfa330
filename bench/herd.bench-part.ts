// daemon.herd_500_p99_s: 500 jobs due in the same second, a real daemon process, real processes.
// Each job is one `date` run through `sh -c` that appends its own name and start time to a file,
// so lateness is what the job itself saw: (process start) - (scheduled instant).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../scripts/fleet/ports.ts';
import type { Metric } from './metric.ts';
import { p99, percentile } from './metric.ts';
import { childrenOf, rssMb } from './proc.ts';

const ROOT = join(import.meta.dirname, '..');
const BUNDLE = join(ROOT, 'dist', 'cronstable.mjs');

export interface HerdOptions {
  jobs?: number;
  /** Herds are due every `period` seconds (a divisor of 60); this many of them are measured. */
  herds?: number;
  period?: number;
  /** With a `state:` section (job API, run ledger): the per-launch work a real node does. */
  withState?: boolean;
  /** The daemon's command (default: this Node on the bundle). */
  command?: string[];
  /** Told the first measured herd's instant (epoch seconds) once it is chosen. */
  onFirstHerd?: (instant: number) => void;
}

export interface HerdResult {
  /** p99 lateness of each measured herd, seconds (Infinity when a job never started). */
  p99s: number[];
  /** Median lateness of each measured herd, seconds. */
  p50s: number[];
  /** Slowest answer of `GET /version` polled every 25 ms during the herds, seconds. */
  webMax: number;
  /** RSS of the daemon plus its helper processes between herds (after the last one), MB. */
  rssBetween: number;
  /** RSS of the helper processes alone (the spawner), MB. */
  rssHelpers: number;
  /** Peak RSS (VmHWM) of the daemon process at the end, MB. */
  rssPeak: number;
  /** Jobs that started more than once in one herd (must be 0). */
  duplicates: number;
  /** CPU seconds per herd of the daemon, its helpers and the jobs (whatever the machine's load). */
  cpuPerHerd: number;
  /** The same, split: the daemon's own, its helpers' own (spawners), the jobs'. */
  cpuSplit: TreeCpu;
}

/** The command each herd job runs: it appends its name and the time it started to `file`. */
export function herdCommand(i: number, file: string): string {
  return `date '+herd-${i} %s.%N' >> ${file}`;
}

function jobsYaml(dir: string, jobs: number, period: number, port: number, withState: boolean): string {
  const out = [`web:\n  listen:\n    - http://127.0.0.1:${port}`];
  if (withState) out.push(`state:\n  path: ${join(dir, 'state')}`);
  out.push('defaults:\n  captureStdout: true\njobs:');
  const starts = join(dir, 'starts');
  for (let i = 0; i < jobs; i++) {
    out.push(
      `  - name: herd-${i}`,
      `    command: ${herdCommand(i, starts)}`,
      `    schedule: "*/${period} * * * * * *"`,
    );
  }
  return `${out.join('\n')}\n`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function timedGet(url: string, timeoutMs = 5000): Promise<number | null> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await res.text();
    return res.ok ? (performance.now() - t0) / 1000 : null;
  } catch {
    return null;
  }
}

const CLOCK_TICK = 100;

/** CPU seconds of `pid` itself (utime, stime) and of its reaped children (cutime, cstime). */
function cpuOf(pid: number): { own: number; reaped: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      own: (Number(f[11]) + Number(f[12])) / CLOCK_TICK,
      reaped: (Number(f[13]) + Number(f[14])) / CLOCK_TICK,
    };
  } catch {
    return { own: 0, reaped: 0 };
  }
}

/** CPU split: the daemon's own, its helpers' own, and the jobs (reaped by either). */
interface TreeCpu {
  daemon: number;
  helpers: number;
  jobs: number;
}

/** The CPU of the daemon and of what it started, reaped or alive (the spawner reaps its jobs). */
function treeCpu(pid: number): TreeCpu {
  const daemon = cpuOf(pid);
  const out: TreeCpu = { daemon: daemon.own, helpers: 0, jobs: daemon.reaped };
  for (const child of childrenOf(pid)) {
    const c = cpuOf(child);
    out.helpers += c.own;
    out.jobs += c.reaped;
  }
  return out;
}

/** Lateness of each job of the herd due at `instant` (s); a job that never started counts as Infinity. */
export function herdLateness(
  starts: Map<number, Map<string, number[]>>,
  instant: number,
  jobs: number,
): { values: number[]; duplicates: number } {
  const byJob = starts.get(instant) ?? new Map<string, number[]>();
  const values: number[] = [];
  let duplicates = 0;
  for (let i = 0; i < jobs; i++) {
    const seen = byJob.get(`herd-${i}`) ?? [];
    if (seen.length > 1) duplicates += seen.length - 1;
    values.push(seen.length > 0 ? Math.min(...seen) - instant : Number.POSITIVE_INFINITY);
  }
  return { values, duplicates };
}

/** Start lines grouped by the herd instant they belong to (the period boundary at or before them). */
export function readStarts(file: string, period: number): Map<number, Map<string, number[]>> {
  const out = new Map<number, Map<string, number[]>>();
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [name, at] = line.split(' ');
    if (!name || !at) continue;
    const t = Number(at);
    const instant = Math.floor(t / period) * period;
    const byJob = out.get(instant) ?? new Map<string, number[]>();
    out.set(instant, byJob);
    const list = byJob.get(name) ?? [];
    list.push(t);
    byJob.set(name, list);
  }
  return out;
}

export async function measureHerd(opts: HerdOptions = {}): Promise<HerdResult> {
  const jobs = opts.jobs ?? 500;
  const herds = opts.herds ?? 3;
  const period = opts.period ?? 20;
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-herd-'));
  const port = await freePort();
  writeFileSync(join(dir, 'jobs.yaml'), jobsYaml(dir, jobs, period, port, opts.withState ?? false));
  const [cmd, ...args] = opts.command ?? [process.execPath, BUNDLE];
  const daemon: ChildProcess = spawn(cmd!, [...args, '-c', join(dir, 'jobs.yaml'), '-l', 'WARNING'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}/version`;
  try {
    const bootDeadline = Date.now() + 30_000;
    while ((await timedGet(url, 1000)) === null) {
      if (Date.now() > bootDeadline || daemon.exitCode !== null)
        throw new Error('herd: the daemon did not start');
      await sleep(100);
    }
    // The first measured herd is the first boundary at least 2 s away (the daemon settles first).
    const first = Math.ceil((Date.now() / 1000 + 2) / period) * period;
    opts.onFirstHerd?.(first);
    await sleep(first * 1000 - 1000 - Date.now());
    const pid = daemon.pid!;
    const cpuBefore = treeCpu(pid);
    let webMax = 0;
    const last = first + (herds - 1) * period;
    const probeUntil = (last + period - 2) * 1000;
    while (Date.now() < probeUntil) {
      const s = await timedGet(url);
      webMax = Math.max(webMax, s ?? Number.POSITIVE_INFINITY);
      await sleep(25);
    }
    const rssPeak = rssMb(pid, 'VmHWM');
    // Every job of the last herd has exited by now: the daemon's children are its helpers.
    const rssHelpers = childrenOf(pid).reduce((sum, p) => sum + rssMb(p), 0);
    const rssBetween = rssMb(pid) + rssHelpers;
    const cpuAfter = treeCpu(pid);
    const cpuSplit: TreeCpu = {
      daemon: (cpuAfter.daemon - cpuBefore.daemon) / herds,
      helpers: (cpuAfter.helpers - cpuBefore.helpers) / herds,
      jobs: (cpuAfter.jobs - cpuBefore.jobs) / herds,
    };
    const cpuPerHerd = cpuSplit.daemon + cpuSplit.helpers + cpuSplit.jobs;
    const starts = readStarts(join(dir, 'starts'), period);
    const p99s: number[] = [];
    const p50s: number[] = [];
    let duplicates = 0;
    for (let h = 0; h < herds; h++) {
      const herd = herdLateness(starts, first + h * period, jobs);
      p99s.push(p99(herd.values));
      p50s.push(percentile(herd.values, 0.5));
      duplicates += herd.duplicates;
    }
    return { p99s, p50s, webMax, rssBetween, rssHelpers, rssPeak, duplicates, cpuPerHerd, cpuSplit };
  } finally {
    daemon.kill('SIGTERM');
    if (daemon.exitCode === null) await new Promise((r) => daemon.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export const round = (x: number, digits: number) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : x);

/**
 * The herd metrics of the `daemon` group. The node has no `state:` section by default (the spawn
 * path alone); BENCH_HERD_STATE=1 adds one (job API identity and run ledger per launch).
 */
export async function herdMetrics(): Promise<Metric[]> {
  const herds = Number(process.env.BENCH_HERDS ?? 3);
  const r = await measureHerd({ herds, withState: process.env.BENCH_HERD_STATE === '1' });
  if (r.duplicates > 0) throw new Error(`herd: ${r.duplicates} job(s) started twice in one herd`);
  process.stderr.write(
    `herd p99 per herd (s): ${r.p99s.map((x) => round(x, 3)).join(', ')}; p50 ${r.p50s.map((x) => round(x, 3)).join(', ')}; ` +
      `web max ${round(r.webMax, 3)} s; ${round(r.cpuPerHerd, 2)} CPU s per herd; ` +
      `rss between herds ${round(r.rssBetween, 1)} MB (helpers ${round(r.rssHelpers, 1)} MB), daemon peak ${round(r.rssPeak, 1)} MB\n`,
  );
  return [
    { metric: 'daemon.herd_500_p99_s', value: round(median(r.p99s), 3), unit: 's', budget: 1.0 },
    { metric: 'daemon.herd_500_web_max_s', value: round(r.webMax, 3), unit: 's' },
    { metric: 'daemon.herd_500_cpu_s', value: round(r.cpuPerHerd, 2), unit: 's' },
    { metric: 'daemon.herd_500_rss_mb', value: round(r.rssBetween, 1), unit: 'MB' },
  ];
}
