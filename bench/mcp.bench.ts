// The MCP endpoint on a real daemon (dist/cronstable.mjs):
//   mcp.list_jobs_p50_ms / mcp.rest_jobs_p50_ms / mcp.list_jobs_ratio: p50 of `tools/call
//     cron_list_jobs` returning all 3,000 jobs (maxRows 3000, limit 3000) against p50 of
//     `GET /jobs` on the same daemon, sequential keep-alive requests timed round-robin (one of
//     each per round) so machine load falls on both alike; budget ratio <= 1.5;
//   mcp.rss_with_mb / mcp.rss_without_mb / mcp.rss_added_mb: resident memory of a daemon (100 jobs)
//     with `mcp: {enabled: true}` after initialize, tools/list and ten tools/call of ten read tools,
//     and of one without an `mcp:` block after the ten REST reads those tools mirror (the same
//     payload code, so the difference is what MCP itself costs); budget added <= 5 MB. Median of
//     SAMPLES_IDLE daemons each, the two kinds interleaved so machine load falls on both alike;
//   mcp.rss_idle_mb / mcp.rss_idle_without_mb: resident memory of an idle daemon (100 jobs) with
//     `mcp: {enabled: true}` and without an `mcp:` block (the MCP server loads lazily);
//   mcp.start_ms / mcp.start_without_ms: spawn to the first 200 from GET /version, same configs.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../scripts/fleet/ports.ts';
import { generateJobFile } from './config.bench.ts';
import type { Metric } from './metric.ts';
import { percentile } from './metric.ts';
import { rssMb } from './proc.ts';

const ROOT = join(import.meta.dirname, '..');
const BUNDLE = join(ROOT, 'dist', 'cronstable.mjs');
const ROUNDS = 300;
const WARMUP = 30;
const SAMPLES_IDLE = 5;

interface Daemon {
  child: ChildProcess;
  base: string;
  startMs: number;
  dir: string;
}

async function startDaemon(jobs: number, mcp: string): Promise<Daemon> {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-bench-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  writeFileSync(join(dir, 'c.yaml'), `${generateJobFile(jobs)}web:\n  listen:\n    - ${base}\n${mcp}`);
  const t0 = performance.now();
  const child = spawn(process.execPath, [BUNDLE, '-c', join(dir, 'c.yaml'), '-l', 'ERROR'], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 2000; i++) {
    const ok = await fetch(`${base}/version`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return { child, base, startMs: performance.now() - t0, dir };
    await new Promise((r) => setTimeout(r, 5));
  }
  child.kill('SIGKILL');
  throw new Error('the daemon did not answer /version');
}

async function stop(d: Daemon): Promise<void> {
  d.child.kill('SIGTERM');
  await new Promise((r) => d.child.once('exit', r));
  rmSync(d.dir, { recursive: true, force: true });
}

const MCP_HEADERS = { accept: 'application/json', 'content-type': 'application/json' };

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function listJobsLatency(): Promise<{ mcp: number; rest: number }> {
  const d = await startDaemon(3000, 'mcp:\n  enabled: true\n  maxRows: 3000\n');
  try {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'cron_list_jobs', arguments: { limit: 3000 } },
    });
    const mcp = async () => {
      const res = await fetch(`${d.base}/mcp`, { method: 'POST', headers: MCP_HEADERS, body });
      const reply = (await res.json()) as { result?: { structuredContent?: { jobs?: unknown[] } } };
      const n = reply.result?.structuredContent?.jobs?.length;
      if (n !== 3000)
        throw new Error(`cron_list_jobs returned ${n} jobs: ${JSON.stringify(reply).slice(0, 300)}`);
    };
    const rest = async () => {
      const res = await fetch(`${d.base}/jobs`);
      const jobs = (await res.json()) as unknown[];
      if (jobs.length !== 3000) throw new Error(`GET /jobs returned ${jobs.length} jobs`);
    };
    for (let i = 0; i < WARMUP; i++) {
      await mcp();
      await rest();
    }
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      a.push(await timed(mcp));
      b.push(await timed(rest));
    }
    return { mcp: percentile(a, 0.5), rest: percentile(b, 0.5) };
  } finally {
    await stop(d);
  }
}

/** Ten read tools and, for each, the REST read of the same payload. */
const READS: [tool: string, args: Record<string, unknown>, rest: string][] = [
  ['cron_get_status', {}, '/status'],
  ['cron_list_jobs', {}, '/jobs'],
  ['cron_get_job', { name: 'job-1' }, '/jobs'],
  ['cron_list_runs', { name: 'job-1' }, '/jobs/job-1/runs'],
  ['cron_get_job_trends', { name: 'job-1' }, '/jobs/job-1/trends'],
  ['cron_get_cluster', {}, '/cluster'],
  ['cron_get_version', {}, '/version'],
  ['cron_schedule_pressure', {}, '/schedule/pressure'],
  ['cron_validate_schedule', { expression: '*/5 * * * *' }, '/schedule/preview?expr=*/5+*+*+*+*'],
  ['cron_explain_schedule', { expression: '0 3 * * 1' }, '/schedule/preview?expr=0+3+*+*+1&count=5'],
];

async function rpc(d: Daemon, id: number, method: string, params: unknown): Promise<void> {
  const res = await fetch(`${d.base}/mcp`, {
    method: 'POST',
    headers: MCP_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  const reply = (await res.json()) as { error?: unknown; result?: { isError?: boolean } };
  if (reply.error || reply.result?.isError)
    throw new Error(`${method}: ${JSON.stringify(reply).slice(0, 300)}`);
}

/** An MCP client's session: initialize, tools/list, then the ten read tools. */
async function mcpSession(d: Daemon): Promise<void> {
  const init = {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  };
  await rpc(d, 1, 'initialize', init);
  await rpc(d, 2, 'tools/list', {});
  for (const [i, [name, args]] of READS.entries())
    await rpc(d, 3 + i, 'tools/call', { name, arguments: args });
}

async function restReads(d: Daemon): Promise<void> {
  for (const [, , path] of READS) {
    const res = await fetch(`${d.base}${path}`);
    if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
    await res.text();
  }
}

/** Median RSS (3 s after the reads) over SAMPLES_IDLE daemons of each kind, interleaved. */
async function afterReads(): Promise<{ with: number; without: number }> {
  const withMcp: number[] = [];
  const without: number[] = [];
  const sample = async (mcp: string, reads: (d: Daemon) => Promise<void>, into: number[]) => {
    const d = await startDaemon(100, mcp);
    try {
      await reads(d);
      await new Promise((r) => setTimeout(r, 3000));
      into.push(rssMb(d.child.pid!));
    } finally {
      await stop(d);
    }
  };
  for (let i = 0; i < SAMPLES_IDLE; i++) {
    await sample('', restReads, without);
    await sample('mcp:\n  enabled: true\n', mcpSession, withMcp);
  }
  return { with: percentile(withMcp, 0.5), without: percentile(without, 0.5) };
}

/** Median over SAMPLES_IDLE daemons of [RSS after 3 s idle, start ms]. */
async function idle(mcp: string): Promise<{ rss: number; start: number }> {
  const rss: number[] = [];
  const start: number[] = [];
  for (let i = 0; i < SAMPLES_IDLE; i++) {
    const d = await startDaemon(100, mcp);
    try {
      await new Promise((r) => setTimeout(r, 3000));
      rss.push(rssMb(d.child.pid!));
      start.push(d.startMs);
    } finally {
      await stop(d);
    }
  }
  return { rss: percentile(rss, 0.5), start: percentile(start, 0.5) };
}

export async function run(): Promise<Metric[]> {
  const latency = await listJobsLatency();
  const reads = await afterReads();
  const without = await idle('');
  const withMcp = await idle('mcp:\n  enabled: true\n');
  const r = (n: number, d = 2) => Number(n.toFixed(d));
  return [
    { metric: 'mcp.list_jobs_p50_ms', value: r(latency.mcp), unit: 'ms' },
    { metric: 'mcp.rest_jobs_p50_ms', value: r(latency.rest), unit: 'ms' },
    { metric: 'mcp.list_jobs_ratio', value: r(latency.mcp / latency.rest, 3), unit: 'x', budget: 1.5 },
    { metric: 'mcp.rss_with_mb', value: r(reads.with, 1), unit: 'MB' },
    { metric: 'mcp.rss_without_mb', value: r(reads.without, 1), unit: 'MB' },
    { metric: 'mcp.rss_added_mb', value: r(reads.with - reads.without, 1), unit: 'MB', budget: 5 },
    { metric: 'mcp.rss_idle_mb', value: r(withMcp.rss, 1), unit: 'MB' },
    { metric: 'mcp.rss_idle_without_mb', value: r(without.rss, 1), unit: 'MB' },
    { metric: 'mcp.start_ms', value: r(withMcp.start, 0), unit: 'ms' },
    { metric: 'mcp.start_without_ms', value: r(without.start, 0), unit: 'ms' },
  ];
}
