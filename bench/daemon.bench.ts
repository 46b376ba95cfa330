// daemon.fire_lateness_p99_idle (one job every second), daemon.herd_500_p99_s (500 jobs due in
// the same second: herd.bench-part.ts) and daemon.rss_idle_1k_jobs (resident memory of the
// daemon process holding 1,000 jobs). The old 1,000-jobs-every-second budget is gone: a node
// cannot fork 1,000 shells a second on 2 cores (issue 9).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/load.ts';
import { launch } from '../src/exec/index.ts';
import { Scheduler } from '../src/scheduler/scheduler.ts';
import { RealClock } from '../src/util/clock.ts';
import { LEVELS, Logger, setLogLevel } from '../src/util/log.ts';
import { herdMetrics } from './herd.bench-part.ts';
import { type Metric, p99 } from './metric.ts';
import { workloadMetrics } from './workload.ts';

const ROOT = join(import.meta.dirname, '..');

function jobFile(count: number, schedule: string): string {
  const lines = ['jobs:'];
  for (let i = 0; i < count; i++)
    lines.push(
      `  - name: job-${i}`,
      '    command:',
      '      - /bin/true',
      `    schedule: "${schedule}"`,
      '    captureStderr: false',
    );
  return `${lines.join('\n')}\n`;
}

/** Runs an in-process scheduler with real processes and measures spawn time - scheduled instant. */
async function lateness(jobs: number, seconds: number): Promise<{ p99: number; fires: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-bench-'));
  const file = join(dir, 'jobs.yaml');
  writeFileSync(file, jobFile(jobs, '* * * * * * *'));
  const cfg = loadConfig(file);
  const samples: number[] = [];
  setLogLevel(LEVELS.ERROR);
  const scheduler = new Scheduler({
    clock: new RealClock(),
    log: new Logger('cronstable'),
    durable: {
      lastOutcome: async (_job, memory) => memory,
      rebootAllowed: async () => true,
      claimSlot: async () => ({}),
      register: async (_job, run) => ({
        env: { CRONSTABLE_SCHEDULED_AT: String(run.scheduledAt ?? '') },
      }),
    },
    launch: (spec, opts) => {
      const handle = launch(spec, opts);
      const scheduledAt = Number(opts.injectedEnv?.CRONSTABLE_SCHEDULED_AT);
      if (scheduledAt) samples.push((Date.now() - scheduledAt) / 1000);
      return handle;
    },
    report: async () => {},
  });
  scheduler.load(cfg.jobs);
  scheduler.start();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  await scheduler.stop(5_000);
  setLogLevel(LEVELS.INFO);
  rmSync(dir, { recursive: true, force: true });
  return { p99: p99(samples), fires: samples.length };
}

async function rssOfDaemon(jobs: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-bench-'));
  writeFileSync(join(dir, 'jobs.yaml'), jobFile(jobs, '0 0 1 1 *'));
  const child = spawn(
    process.execPath,
    [join(ROOT, 'dist', 'cronstable.mjs'), '-c', join(dir, 'jobs.yaml'), '-l', 'ERROR'],
    {
      stdio: 'ignore',
    },
  );
  try {
    await new Promise((r) => setTimeout(r, 4000));
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
    return kb / 1024;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<Metric[]> {
  const idle = await lateness(1, 10);
  const herd = await herdMetrics();
  const rss = await rssOfDaemon(1000);
  const workload = await workloadMetrics();
  return [
    ...workload,
    { metric: 'daemon.fire_lateness_p99_idle', value: Number(idle.p99.toFixed(4)), unit: 's', budget: 0.01 },
    ...herd,
    { metric: 'daemon.rss_idle_1k_jobs', value: Number(rss.toFixed(1)), unit: 'MB', budget: 80 },
  ];
}
