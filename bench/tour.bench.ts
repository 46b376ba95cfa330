// The grand tour's acceptance soak (issue 12): the full nine-node tour (example/grand-tour through
// scripts/tour, gossip + mutual TLS, distribution: spread, the tour's own timings, the local
// sinks) runs for TOUR_SOAK_SECONDS (default 900). Reported, measured not asserted:
//   - every Leader-job slot of the window ran exactly once fleet-wide, from the shared ledger
//     (jobs on a fixed minute step; Forbid jobs, whose overlapping slots are skipped by design,
//     are held to "at most once" instead);
//   - total RSS of the nine daemons (each with its own long-lived helper processes), steady
//     (mean of the last minute) and peak;
//   - CPU seconds of each daemon over the window (its own user+system time, not its jobs');
//   - `/status` p99 on every node, polled once a second each while the pulse-* probes (every 2 s
//     and 5 s on all nine nodes) poll it too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { waitUntil } from '../scripts/fleet/fleet.ts';
import { exactlyOnce, readRuns, tallySlots } from '../scripts/fleet/ledger.ts';
import { EXAMPLE_DIR, startTour, TOUR_TIMINGS } from '../scripts/tour/tour.ts';
import { type Metric, p99 } from './metric.ts';
import { cpuSeconds, nodeRssMb, rssMb } from './proc.ts';

const SOAK_S = Number(process.env.TOUR_SOAK_SECONDS ?? 900);
const NODES = 9;

/** The minute step of a schedule (every minute -> 1, `*\/5` minutes -> 5), or null if irregular. */
export function minuteStep(schedule: string): number | null {
  const f = schedule.trim().split(/\s+/);
  if (f.length !== 5 || f.slice(1).some((x) => x !== '*')) return null;
  if (f[0] === '*') return 1;
  const m = /^\*\/(\d+)$/.exec(f[0]!);
  const n = m ? Number(m[1]) : Number.NaN;
  return n > 0 && 60 % n === 0 ? n : null;
}

const round = (v: number, d = 1) => Number(v.toFixed(d));

export async function run(): Promise<Metric[]> {
  const say = (l: string) => process.stderr.write(`tour bench: ${l}\n`);
  const t0 = Date.now();
  const tour = await startTour({ nodes: NODES, timings: TOUR_TIMINGS, logLevel: 'WARNING' });
  try {
    say(`${NODES} nodes up in ${((Date.now() - t0) / 1000).toFixed(1)} s; waiting for the mesh`);
    await tour.waitConverged(120_000);
    // Settled ownership: every node names the same owner for every job.
    await waitUntil(
      async () => {
        const views = await Promise.all(tour.nodes.map((n) => n.jobs()));
        const key = (v: (typeof views)[number]) =>
          JSON.stringify(Object.values(v).map((j) => [j.name, j.clusterOwner ?? null]));
        return views.every((v) => key(v) === key(views[0]!));
      },
      { timeoutMs: 60_000, label: 'every node to report the same owners' },
    );
    const startMs = Date.now();
    say(`converged after ${((startMs - t0) / 1000).toFixed(1)} s; soaking ${SOAK_S} s`);
    const jobs = Object.values(await tour.nodes[0]!.jobs()) as {
      name: string;
      clusterPolicy?: string;
      schedule?: string;
    }[];
    const config = parse(readFileSync(join(EXAMPLE_DIR, 'platform.yaml'), 'utf8')) as {
      jobs: { name: string; concurrencyPolicy?: string }[];
    };
    const forbid = new Set(config.jobs.filter((j) => j.concurrencyPolicy === 'Forbid').map((j) => j.name));

    const cpu0 = new Map(tour.nodes.map((n) => [n.id, cpuSeconds(n.child!.pid!) ?? 0]));
    const latency = new Map<string, number[]>(tour.nodes.map((n) => [n.id, []]));
    const errors = new Map<string, number>(tour.nodes.map((n) => [n.id, 0]));
    const rss: { at: number; mb: number; daemonsMb: number }[] = [];
    const helpers = new Set<number>();
    const end = startMs + SOAK_S * 1000;
    const sampler = setInterval(() => {
      let mb = 0;
      let daemonsMb = 0;
      for (const n of tour.nodes) {
        mb += nodeRssMb(n.child!.pid!, (argv, child) => {
          // The spawner (perl) and worker helpers run for the daemon's life; `sh -c` jobs do not.
          const helper = /spawner|cronstable/.test(argv) && !argv.startsWith('/bin/sh');
          if (helper) helpers.add(child);
          return helper;
        });
        daemonsMb += rssMb(n.child!.pid!);
      }
      rss.push({ at: Date.now(), mb, daemonsMb });
    }, 5000);
    await Promise.all(
      tour.nodes.map(async (n, i) => {
        // Staggered so the nine pollers do not arrive together.
        await new Promise((r) => setTimeout(r, (i * 1000) / NODES));
        while (Date.now() < end) {
          const t = performance.now();
          try {
            const res = await fetch(`${n.url}/status`, { signal: AbortSignal.timeout(5000) });
            await res.arrayBuffer();
            if (!res.ok) throw new Error(String(res.status));
            latency.get(n.id)!.push(performance.now() - t);
          } catch {
            errors.set(n.id, errors.get(n.id)! + 1);
          }
          await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (performance.now() - t))));
        }
      }),
    );
    clearInterval(sampler);
    const cpu = new Map(
      tour.nodes.map((n) => [n.id, (cpuSeconds(n.child!.pid!) ?? Number.NaN) - cpu0.get(n.id)!]),
    );
    // Slots due in the window, minus the last minute (runs still in flight are settled below).
    const fromMs = startMs;
    const toMs = end - 60_000;
    await new Promise((r) => setTimeout(r, 15_000));

    const leader = jobs.filter((j) => (j.clusterPolicy ?? 'Leader') === 'Leader');
    const exact: Metric[] = [];
    let expected = 0;
    let once = 0;
    const duplicates: string[] = [];
    const missing: string[] = [];
    const bySteps = new Map<number, string[]>();
    const irregular: string[] = [];
    for (const j of leader) {
      const step = j.schedule ? minuteStep(j.schedule) : null;
      if (step === null || forbid.has(j.name)) irregular.push(j.name);
      else bySteps.set(step, [...(bySteps.get(step) ?? []), j.name]);
    }
    for (const [step, names] of bySteps) {
      const r = exactlyOnce(tour.stateDir, {
        jobs: names,
        fromMs,
        toMs,
        everyMs: step * 60_000,
        ns: tour.deploymentId,
      });
      expected += r.expected;
      once += r.once;
      duplicates.push(...r.duplicates);
      missing.push(...r.missing);
    }
    // Every other Leader job (hourly, daily, Forbid...): whatever slot it had ran at most once.
    const rows = readRuns(tour.stateDir, { ns: tour.deploymentId, jobs: irregular });
    for (const t of tallySlots(rows, irregular, fromMs, toMs).values())
      if (t.ranOn.length > 1)
        duplicates.push(`${t.job}@${new Date(t.scheduledAt).toISOString()} on ${t.ranOn.join(',')}`);
    if (duplicates.length) say(`duplicates: ${duplicates.join('; ')}`);
    if (missing.length) say(`missing: ${missing.join('; ')}`);
    exact.push(
      { metric: 'tour.soak_s', value: SOAK_S, unit: 's' },
      { metric: 'tour.leader_jobs_checked', value: [...bySteps.values()].flat().length, unit: 'count' },
      { metric: 'tour.leader_slots_expected', value: expected, unit: 'count' },
      { metric: 'tour.leader_slots_exactly_once', value: once, unit: 'count' },
      { metric: 'tour.leader_slots_duplicated', value: duplicates.length, unit: 'count', budget: 0 },
      { metric: 'tour.leader_slots_missing', value: missing.length, unit: 'count', budget: 0 },
      {
        metric: 'tour.leader_every_slot_exactly_once',
        value: duplicates.length === 0 && missing.length === 0 && once === expected ? 1 : 0,
        unit: 'bool',
        budget: 1,
      },
    );
    const last = rss.filter((s) => s.at >= end - 60_000);
    const steady = last.reduce((a, s) => a + s.mb, 0) / Math.max(1, last.length);
    const metrics: Metric[] = [
      ...exact,
      { metric: 'tour.rss_total_steady_mb', value: round(steady), unit: 'MB', budget: NODES * 60 },
      { metric: 'tour.rss_total_peak_mb', value: round(Math.max(...rss.map((s) => s.mb))), unit: 'MB' },
      {
        // The daemon processes alone (no spawner), per node: the figure DESIGN.md §12 budgets.
        metric: 'tour.rss_daemon_steady_mb_per_node',
        value: round(last.reduce((a, s) => a + s.daemonsMb, 0) / Math.max(1, last.length) / NODES),
        unit: 'MB',
        budget: 60,
      },
    ];
    for (const n of tour.nodes)
      metrics.push({ metric: `tour.cpu_s.${n.id}`, value: round(cpu.get(n.id)!, 2), unit: 's' });
    const cpuTotal = [...cpu.values()].reduce((a, b) => a + b, 0);
    metrics.push({ metric: 'tour.cpu_s_total', value: round(cpuTotal, 1), unit: 's' });
    metrics.push({
      metric: 'tour.cpu_pct_per_node_mean',
      value: round((100 * cpuTotal) / NODES / SOAK_S, 2),
      unit: '%',
    });
    for (const n of tour.nodes)
      metrics.push({
        metric: `tour.status_p99_ms.${n.id}`,
        value: round(p99(latency.get(n.id)!)),
        unit: 'ms',
        budget: 20,
      });
    metrics.push({
      metric: 'tour.status_p99_ms_worst',
      value: round(Math.max(...tour.nodes.map((n) => p99(latency.get(n.id)!)))),
      unit: 'ms',
      budget: 20,
    });
    metrics.push({
      metric: 'tour.status_requests',
      value: [...latency.values()].reduce((a, l) => a + l.length, 0),
      unit: 'count',
    });
    metrics.push({
      metric: 'tour.status_errors',
      value: [...errors.values()].reduce((a, b) => a + b, 0),
      unit: 'count',
    });
    if (tour.sinks) {
      metrics.push({ metric: 'tour.sink_mails', value: tour.sinks.smtp.messages.length, unit: 'count' });
      metrics.push({ metric: 'tour.sink_webhooks', value: tour.sinks.webhook.hits.length, unit: 'count' });
      metrics.push({
        metric: 'tour.sink_statsd_packets',
        value: tour.sinks.statsd.registry.packets,
        unit: 'count',
      });
    }
    return metrics;
  } finally {
    await tour.stop();
  }
}
