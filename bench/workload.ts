// The real workload of issue 9: the grand-tour job set (63 jobs, second-level probes, jobs that
// call the job CLI, state and web on) run by one real daemon process through two minute
// boundaries, with a minute-boundary burst topped up to ~30 jobs. Reports the daemon's memory,
// its worst event-loop stall, and the web API's latency while all of that runs.
import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from '../scripts/fleet/ports.ts';
import { type Metric, percentile } from './metric.ts';
import { nodeRssMb } from './proc.ts';

const ROOT = join(import.meta.dirname, '..');
const FIXTURE = join(ROOT, 'example', 'grand-tour');
/** The job set's files (the example directory also holds the compose file, scripts, a README). */
const JOB_SET = ['platform.yaml', '_defaults.yaml', 'legacy.crontab', 'platform.env', 'secrets'];
const PROBE = join(import.meta.dirname, 'loop-probe.mjs');
/** Extra every-minute jobs, so that each minute boundary starts ~30 jobs at once. */
const BURST_JOBS = 15;

interface Sinks {
  webhookPort: number;
  statsdPort: number;
  smtpPort: number;
  close(): Promise<void>;
}

/** Loopback stand-ins for the tour's sinks: webhooks get a 200, statsd a socket, mail a refusal. */
export async function startSinks(): Promise<Sinks> {
  const hooks: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  const udp = createSocket('udp4');
  await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
  // A closed port: mail reports fail fast with ECONNREFUSED, as with a sink that is down.
  const smtpPort = await freePort();
  return {
    webhookPort: (hooks.address() as AddressInfo).port,
    statsdPort: udp.address().port,
    smtpPort,
    close: async () => {
      udp.close();
      await new Promise((r) => hooks.close(r));
    },
  };
}

/** The fixture rewritten to this machine: state in a temp dir, web and sinks on loopback. */
export function writeJobSet(dir: string, webPort: number, sinks: Sinks, topology?: 'single-node'): void {
  for (const name of JOB_SET) {
    const from = join(FIXTURE, name);
    if (name === 'secrets') {
      mkdirSync(join(dir, name), { recursive: true });
      for (const s of readdirSync(from)) copyFileSync(join(from, s), join(dir, name, s));
      continue;
    }
    let text = readFileSync(from, 'utf8');
    text = text
      .replaceAll('/var/lib/cronstable/state', join(dir, 'state'))
      .replaceAll('http://0.0.0.0:8080', `http://127.0.0.1:${webPort}`)
      .replaceAll('http://127.0.0.1:8080}', `http://127.0.0.1:${webPort}}`)
      .replaceAll('http://webhook-sink:8080/', `http://127.0.0.1:${sinks.webhookPort}/`)
      .replaceAll('host: statsd-exporter', 'host: 127.0.0.1')
      .replaceAll('port: 9125', `port: ${sinks.statsdPort}`)
      .replaceAll('smtpHost: mailpit', 'smtpHost: 127.0.0.1')
      .replaceAll('smtpPort: 1025', `smtpPort: ${sinks.smtpPort}`);
    if (topology) text = text.replace('topology: shared', `topology: ${topology}`);
    writeFileSync(join(dir, name), text);
  }
  const burst = ['jobs:'];
  for (let i = 0; i < BURST_JOBS; i++)
    burst.push(
      `  - name: burst-${i}`,
      `    command: 'echo "burst ${i}"; cronstable state get burst-${i} >/dev/null 2>&1 || true'`,
      '    schedule: "* * * * *"',
    );
  writeFileSync(join(dir, 'burst.yaml'), `${burst.join('\n')}\n`);
}

async function timedGet(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return performance.now() - t0;
}

async function waitUp(url: string, child: ChildProcess, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`the daemon exited with ${child.exitCode}`);
    try {
      await timedGet(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} did not answer within ${ms} ms`);
}

export interface WorkloadResult {
  rssSteadyMb: number;
  rssPeakMb: number;
  loopDelayMaxMs: number;
  versionP99Ms: number;
  jobsP99Ms: number;
  versionP50Ms: number;
  jobsP50Ms: number;
  seconds: number;
}

export async function runWorkload(topology?: 'single-node'): Promise<WorkloadResult> {
  const program = join(ROOT, 'dist', 'cronstable.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-workload-'));
  const sinks = await startSinks();
  const port = await freePort();
  writeJobSet(dir, port, sinks, topology);
  const loopFile = join(dir, 'loop.jsonl');
  const child = spawn(
    process.execPath,
    ['--import', pathToFileURL(PROBE).href, program, '-c', dir, '-l', 'WARNING'],
    {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'ignore'],
      env: { ...process.env, CRONSTABLE_LOOP_PROBE: loopFile },
    },
  );
  const base = `http://127.0.0.1:${port}`;
  const rss: { at: number; mb: number }[] = [];
  const version: number[] = [];
  const jobs: number[] = [];
  try {
    await waitUp(`${base}/version`, child, 30_000);
    const startedAt = Date.now();
    // Two minute boundaries after start, and 15 s past the second for the burst to drain.
    const firstBoundary = Math.ceil(startedAt / 60_000) * 60_000;
    const end = firstBoundary + 60_000 + 15_000;
    const sampler = setInterval(
      () =>
        rss.push({
          at: Date.now(),
          mb: nodeRssMb(child.pid!, (argv) => argv.split('\0').some((a) => a === program)),
        }),
      500,
    );
    const load = async (path: string, into: number[]) => {
      while (Date.now() < end) {
        into.push(await timedGet(`${base}${path}`));
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await Promise.all([load('/version', version), load('/jobs', jobs)]);
    clearInterval(sampler);
    const loop = readFileSync(loopFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { at: number; pid: number; main: boolean; maxMs: number })
      .filter((s) => s.pid === child.pid && s.main && s.at > startedAt + 2_000);
    const steady = rss.filter((s) => s.at >= end - 60_000).map((s) => s.mb);
    return {
      rssSteadyMb: percentile(steady, 0.5),
      rssPeakMb: Math.max(...rss.map((s) => s.mb)),
      loopDelayMaxMs: Math.max(...loop.map((s) => s.maxMs)),
      versionP99Ms: percentile(version, 0.99),
      jobsP99Ms: percentile(jobs, 0.99),
      versionP50Ms: percentile(version, 0.5),
      jobsP50Ms: percentile(jobs, 0.5),
      seconds: (end - startedAt) / 1000,
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.on('exit', r)));
    await sinks.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The fixture as the fleet runs it (`topology: shared`: the store in two worker lanes), then the
 * same job set on a local disk (`single-node`: the store inline), as one host would run it.
 */
export async function workloadMetrics(): Promise<Metric[]> {
  const round = (v: number) => Number(v.toFixed(1));
  const shared = await runWorkload();
  const local = await runWorkload('single-node');
  return [
    { metric: 'daemon.rss_steady_mb', value: round(shared.rssSteadyMb), unit: 'MB', budget: 60 },
    { metric: 'daemon.rss_peak_mb', value: round(shared.rssPeakMb), unit: 'MB', budget: 90 },
    { metric: 'daemon.loop_delay_max_ms', value: round(shared.loopDelayMaxMs), unit: 'ms', budget: 50 },
    { metric: 'web.version_p99_under_load_ms', value: round(shared.versionP99Ms), unit: 'ms', budget: 50 },
    { metric: 'web.jobs_p99_under_load_ms', value: round(shared.jobsP99Ms), unit: 'ms', budget: 50 },
    { metric: 'web.version_p50_under_load_ms', value: round(shared.versionP50Ms), unit: 'ms' },
    { metric: 'web.jobs_p50_under_load_ms', value: round(shared.jobsP50Ms), unit: 'ms' },
    { metric: 'daemon.rss_steady_mb_local', value: round(local.rssSteadyMb), unit: 'MB', budget: 60 },
    { metric: 'daemon.rss_peak_mb_local', value: round(local.rssPeakMb), unit: 'MB', budget: 90 },
    { metric: 'daemon.loop_delay_max_ms_local', value: round(local.loopDelayMaxMs), unit: 'ms', budget: 50 },
    {
      metric: 'web.version_p99_under_load_ms_local',
      value: round(local.versionP99Ms),
      unit: 'ms',
      budget: 50,
    },
    { metric: 'web.jobs_p99_under_load_ms_local', value: round(local.jobsP99Ms), unit: 'ms', budget: 50 },
  ];
}
