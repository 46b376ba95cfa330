// The monitorResources sampler behind /jobs/{name}/resources: /proc parsing, process-tree sums, and a real child
// process tree sampled from the real /proc (Linux).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  JobResourceSampler,
  readProcs,
  readTreeUsage,
  resourceStats,
  treeUsage,
} from '../../src/api/jobresources.ts';
import type { JobConfig } from '../../src/config/types.ts';
import type { ProcStat } from '../../src/exec/procstat.ts';
import type { RunningRun } from '../../src/scheduler/view.ts';

describe('treeUsage', () => {
  const p = (pid: number, ppid: number, ticks: number, rssPages: number): [number, ProcStat] => [
    pid,
    { pid, ppid, pgrp: pid, ticks, childTicks: 0, rssPages },
  ];
  const procs = new Map([
    p(1, 0, 1000, 10),
    p(10, 1, 5, 100),
    p(11, 10, 7, 50),
    p(12, 11, 3, 25),
    p(20, 1, 99, 99),
  ]);

  it('sums a process and all its descendants, not its siblings', () => {
    expect(treeUsage(10, procs)).toEqual({ ticks: 15, rssPages: 175 });
    expect(treeUsage(12, procs)).toEqual({ ticks: 3, rssPages: 25 });
  });

  it('answers null for a process that is gone', () => {
    expect(treeUsage(999, procs)).toBeNull();
  });
});

describe('resourceStats', () => {
  it('averages over the monitored runs only, last = newest', () => {
    const s = resourceStats([
      { cpu_total_seconds: 1, max_rss_bytes: 100, samples: 2 },
      null,
      { cpu_total_seconds: 3, max_rss_bytes: 300, samples: 5 },
      { cpu_total_seconds: null, max_rss_bytes: 200, samples: 1 },
    ]);
    expect(s).toEqual({
      avg_cpu_seconds: 2,
      max_cpu_seconds: 3,
      last_cpu_seconds: 3,
      avg_rss_bytes: 200,
      max_rss_bytes: 300,
      last_rss_bytes: 200,
    });
    expect(resourceStats([null]).avg_cpu_seconds).toBeNull();
  });
});

describe.runIf(existsSync('/proc/self/stat'))('JobResourceSampler on the real /proc', () => {
  it('samples a running process tree, then keeps the finished run with its series', async () => {
    // A shell with a child: the tree's RSS is the sum of both.
    const child = spawn('sh', ['-c', 'sleep 30 & wait'], { stdio: 'ignore' });
    const pid = child.pid!;
    let running: RunningRun[] = [
      { runId: 'r1', pid, startedAt: Date.now(), trigger: 'manual', lines: [], published: 0, secrets: [] },
    ];
    const job = { name: 'hog', monitorResources: { interval: 0.1, history: 5 } } as unknown as JobConfig;
    let t = Date.now();
    const sampler = new JobResourceSampler(
      {
        jobNames: () => ['hog', 'other'],
        job: (n) => (n === 'hog' ? job : undefined),
        running: (n) => (n === 'hog' ? running : []),
      },
      readTreeUsage,
      () => t,
    );
    try {
      // Wait until the shell has forked its sleep, so the tree has two processes.
      for (let i = 0; i < 50 && [...readProcs().values()].every((p) => p.ppid !== pid); i++)
        await new Promise((r) => setTimeout(r, 20));
      for (let i = 0; i < 3; i++) {
        sampler.tick();
        t += 1000;
      }
      const live = sampler.liveOf('hog');
      expect(live).toHaveLength(1);
      expect(live[0]!.pid).toBe(pid);
      expect(live[0]!.series).toHaveLength(3);
      // Following the children files finds the same tree as a scan of every process (polled: the
      // two reads are not atomic, and a process's RSS can move between them).
      await expect
        .poll(() => JSON.stringify(readTreeUsage(pid)) === JSON.stringify(treeUsage(pid, readProcs())), {
          timeout: 5_000,
        })
        .toBe(true);
      const own = readProcs().get(pid)!;
      expect(live[0]!.current!.rss_bytes).toBeGreaterThan(own.rssPages * 4096);
      expect(live[0]!.current!.cpu_percent).toBeGreaterThanOrEqual(0);
      expect(sampler.liveOf('other')).toEqual([]);
      // The `/jobs` row's running_resources: the newest sample of the one instance.
      expect(sampler.runningOf('hog')).toEqual({ ...live[0]!.current, instances: 1 });
      expect(sampler.runningOf('other')).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
    running = [];
    sampler.tick();
    expect(sampler.liveOf('hog')).toEqual([]);
    expect(sampler.runningOf('hog')).toBeNull();
    const runs = sampler.runsOf('hog', 20);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.pid).toBe(pid);
    expect(runs[0]!.resources.samples).toBe(3);
    expect(runs[0]!.resources.max_rss_bytes).toBeGreaterThan(0);
    expect(sampler.runsOf('hog', 0)).toEqual([]);
  });
});
