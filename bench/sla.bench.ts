// The SLA pass (spec 09 §2.2; issue 31: at most 1 ms per pass over 3,000 jobs). 3,000 jobs, each
// with one to three thresholds, a third of them running, a third with a due slot, a third with a
// recorded success; the monitor's steady pass (latches already settled) is timed over 200 passes at
// advancing instants: the fastest (the headline, as bestOf elsewhere) and the median. What runs once a minute in the daemon.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/load.ts';
import { EventStream } from '../src/scheduler/events.ts';
import { JobHistory, type RunRecord } from '../src/scheduler/history.ts';
import { PauseBook } from '../src/scheduler/pauses.ts';
import { SlaMonitor } from '../src/scheduler/sla/monitor.ts';
import { FakeClock } from '../src/util/clock.ts';
import { Logger, setSink } from '../src/util/log.ts';
import { type Metric, percentile } from './metric.ts';

const JOBS = 3000;
const T0 = Date.UTC(2026, 6, 20, 4, 0, 0);

function yaml(): string {
  const out = ['jobs:'];
  for (let i = 0; i < JOBS; i++) {
    out.push(`  - name: job-${i}`, '    command: "true"', '    schedule: "*/5 * * * *"', '    sla:');
    out.push('      maxTimeSinceSuccessSeconds: 86400');
    if (i % 2 === 0) out.push('      lateAfterSeconds: 600');
    if (i % 3 === 0) out.push('      maxRuntimeSeconds: 43200');
  }
  return `${out.join('\n')}\n`;
}

export async function run(): Promise<Metric[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-bench-sla-'));
  writeFileSync(join(dir, 'c.yaml'), yaml());
  const jobs = loadConfig(join(dir, 'c.yaml'), { cwd: dir, nowMs: T0 }).jobs;
  const clock = new FakeClock(T0);
  const events = new EventStream();
  const history = new JobHistory();
  const log = new Logger('cronstable.bench');
  // 500 breach warnings would time the terminal, not the pass.
  setSink(() => {});
  const monitor = new SlaMonitor({
    clock,
    log,
    scheduler: {
      subscribe: events.subscribe,
      history: () => history,
      pauses: new PauseBook(clock, log),
      reportsSettled: () => Promise.resolve(),
    },
    owns: () => true,
    report: async () => {},
    hasStore: false,
  });
  monitor.configure(jobs);
  monitor.start();
  jobs.forEach((job, i) => {
    if (i % 3 === 0)
      events.emit({
        type: 'run-started',
        job,
        runId: `r${i}`,
        trigger: 'schedule',
        attempt: 0,
        scheduledAt: T0,
        pid: 1,
        startedAt: T0,
      });
    if (i % 3 === 1) events.emit({ type: 'due', job, scheduledAt: T0 });
    if (i % 3 === 2)
      events.emit({
        type: 'run-finished',
        job,
        run: { id: `s${i}`, job: job.name, outcome: 'success', finishedAt: T0 } as RunRecord,
        result: {} as never,
      });
  });
  // Guard the measured work: the due slots must breach once, and only once.
  clock.jumpWall(700_000);
  const first = monitor.pass().filter((t) => t.kind === 'breach').length;
  if (first !== 500) throw new Error(`expected 500 lateAfter breaches, got ${first}`);
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    clock.jumpWall(60_000);
    const t0 = process.hrtime.bigint();
    const tr = monitor.pass();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (tr.length !== 0) throw new Error('a steady pass must not change any latch');
  }
  await monitor.stop();
  return [
    // The fastest pass, as bestOf reports elsewhere (least noisy on a shared machine); the median beside it.
    { metric: 'sla.pass_3k_jobs_ms', value: +Math.min(...times).toFixed(3), unit: 'ms', budget: 1 },
    { metric: 'sla.pass_3k_jobs_median_ms', value: +percentile(times, 0.5).toFixed(3), unit: 'ms' },
  ];
}
