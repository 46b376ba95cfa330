// A job's CPU figure counts the processes it ran and waited for: a shell job whose CPU-bound child
// has exited reports at least that child's CPU time (cutime/cstime), on a real daemon with real
// processes. And the resource sampler sleeps while no monitored run is live.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { JobResourceSampler } from '../../src/api/jobresources.ts';
import type { JobConfig } from '../../src/config/types.ts';
import type { SchedulerEvent } from '../../src/scheduler/events.ts';
import { type E2eDaemon, startE2eDaemon, tearDownE2e } from '../helpers/e2e-daemon.ts';
import { freePort } from '../helpers/etcd.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

// The child burns CPU for 1.2 s of wall time, then writes the CPU it used (user + system, s).
const BURN = `const t = Date.now(); while (Date.now() - t < 1200) {} const u = process.cpuUsage(); require('fs').writeFileSync(process.argv[2], String((u.user + u.system) / 1e6));`;

describe('job CPU includes reaped children', () => {
  let daemon: E2eDaemon | null = null;
  let dir = '';
  afterAll(() => tearDownE2e(null, daemon, dir));

  it('reports at least the CPU time of a CPU-bound child the job waited for', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    dir = writeTree({});
    const marker = join(dir, 'child-cpu');
    const script = join(dir, 'burn.cjs');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(script, BURN);
    writeFileSync(
      join(dir, 'cronstable.yaml'),
      [
        'jobs:',
        '  - name: hog',
        '    command:',
        '      - /bin/sh',
        '      - -c',
        `      - "'${process.execPath}' '${script}' '${marker}'; sleep 2"`,
        '    schedule: "0 0 1 1 * 2099"',
        '    monitorResources:',
        '      interval: 0.25',
        'web:',
        '  listen:',
        `    - ${base}`,
        '',
      ].join('\n'),
    );
    daemon = await startE2eDaemon(dir, { base });
    expect((await fetch(`${base}/jobs/hog/start`, { method: 'POST' })).status).toBeLessThan(300);
    // While it runs, its `/jobs` row carries the live sample (spec 06 §5.4 running_resources).
    const live = await until('the running row with its live resources', 30_000, async () => {
      const rows = (await (await fetch(`${base}/jobs`)).json()) as {
        name: string;
        running_resources?: {
          cpu_percent: number;
          cpu_seconds: number;
          rss_bytes: number;
          instances: number;
        };
      }[];
      return rows.find((r) => r.name === 'hog')?.running_resources ?? null;
    });
    expect(live.instances).toBe(1);
    expect(live.rss_bytes).toBeGreaterThan(0);
    expect(live.cpu_percent).toBeGreaterThanOrEqual(0);
    expect(live.cpu_seconds).toBeGreaterThanOrEqual(0);
    const run = await until('the finished run with its resource summary', 30_000, async () => {
      const body = (await (await fetch(`${base}/jobs/hog/resources`)).json()) as {
        runs: { resources: { cpu_total_seconds: number | null } }[];
      };
      return body.runs.length > 0 ? body.runs.at(-1)! : null;
    });
    const childCpu = Number(readFileSync(marker, 'utf8'));
    expect(childCpu).toBeGreaterThan(0.3);
    // /proc counts in 10 ms ticks: allow one tick of rounding per field.
    expect(run.resources.cpu_total_seconds).not.toBeNull();
    expect(run.resources.cpu_total_seconds!).toBeGreaterThanOrEqual(childCpu - 0.02);
  }, 60_000);
});

describe('the resource sampler at rest', () => {
  it('beats only while a monitored run is live, given the event stream', () => {
    let listener: ((e: SchedulerEvent) => void) | null = null;
    const job = { name: 'hog', monitorResources: { interval: 1 } } as unknown as JobConfig;
    let t = 0;
    const sampler = new JobResourceSampler(
      {
        jobNames: () => ['hog'],
        job: () => job,
        running: () => [],
        subscribe: (fn) => {
          listener = fn;
          return () => {
            listener = null;
          };
        },
      },
      () => null,
      () => t,
    );
    vi.useFakeTimers();
    try {
      sampler.start();
      expect(listener).not.toBeNull();
      // Awake for the grace after start, then asleep once a beat finds nothing live.
      expect(sampler.beating).toBe(true);
      vi.advanceTimersByTime(300);
      expect(sampler.beating).toBe(true);
      t += 3_000;
      vi.advanceTimersByTime(300);
      expect(sampler.beating).toBe(false);
    } finally {
      vi.useRealTimers();
    }
    sampler.stop();
    expect(sampler.beating).toBe(false);
    expect(listener).toBeNull();
    sampler.start();
    t += 5_000;
    const started = {
      type: 'run-started',
      job,
      runId: 'r1',
      trigger: 'manual',
      attempt: 1,
      scheduledAt: null,
      pid: 1,
      startedAt: t,
    } as SchedulerEvent;
    listener!(started);
    expect(sampler.beating).toBe(true);
    sampler.stop();
  });
});
