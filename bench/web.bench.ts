// web.status_p99_3k: p99 latency of GET /status with 3,000 jobs loaded, 50 concurrent keep-alive
// clients on loopback (the load runs in a worker thread so it never shares the server's event loop).
// web.calendar_300x14d: seconds to serve the 14-day /calendar.ics feed for 300 jobs (best of 3).
// web.status_p99_overload_ms: p99 latency of GET /status from a tour-like probe (one request every
// 100 ms) while the real daemon runs 200 jobs due every second (/bin/true) for 20 s, more than a
// 2-core node can launch; the budget is the tour's 250 ms probe budget. It also reports the fires
// the node dropped as missed-overload meanwhile (web.overload_missed_fires).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WebContext } from '../src/api/context.ts';
import { jobSetId } from '../src/cluster/jobset.ts';
import { loadConfig } from '../src/config/load.ts';
import type { LoadedConfig } from '../src/config/types.ts';
import { Scheduler } from '../src/scheduler/scheduler.ts';
import type { Clock, TimerHandle } from '../src/util/clock.ts';
import { LEVELS, Logger, setLogLevel } from '../src/util/log.ts';
import { startWebServer } from '../src/web/server.ts';
import { generateJobFile } from './config.bench.ts';
import { bestOf, type Metric, p99 } from './metric.ts';

const CLIENTS = 50;
const REQUESTS_PER_CLIENT = 200;
const WARMUP_PER_CLIENT = 20;

/** Real wall time, but timers never fire: the jobs stay idle while the server is measured. */
class IdleClock implements Clock {
  private n = 0;
  now(): number {
    return Date.now();
  }
  monotonic(): number {
    return performance.now();
  }
  setTimer(): TimerHandle {
    return { id: ++this.n };
  }
  clearTimer(): void {}
}

function context(cfg: LoadedConfig): WebContext & { scheduler: Scheduler } {
  const clock = new IdleClock();
  const scheduler = new Scheduler({
    clock,
    log: new Logger('cronstable'),
    launch: () => {
      throw new Error('no launches in the web benchmark');
    },
    report: async () => {},
  });
  scheduler.load(cfg.jobs);
  scheduler.start();
  const id = jobSetId(cfg.jobs);
  return {
    version: 'bench',
    hostname: 'bench',
    clock,
    config: () => cfg,
    jobSetId: () => id,
    scheduler,
    store: null,
    cluster: () => ({ enabled: false, nodeName: '' }),
  };
}

// Plain JS for the worker (no loader needed): N clients, each on its own keep-alive socket.
export const LOAD_SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
const { port, clients, requests, warmup, path, headers } = workerData;
const REQUEST = Buffer.from('GET ' + path + ' HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n' + headers + '\\r\\n', 'latin1');
const HEAD_END = Buffer.from('\\r\\n\\r\\n', 'latin1');
// One keep-alive connection per client, one request at a time; the body is counted, not kept.
function client() {
  return new Promise((resolve, reject) => {
    const out = [];
    const sock = net.connect(port, '127.0.0.1');
    sock.setNoDelay(true);
    let head = null;
    let left = -1;
    let t0 = 0;
    let n = 0;
    const send = () => {
      t0 = performance.now();
      sock.write(REQUEST);
    };
    sock.on('connect', send);
    sock.on('error', reject);
    sock.on('data', (chunk) => {
      let at = 0;
      while (at < chunk.length) {
        if (left < 0) {
          head = head ? Buffer.concat([head, chunk.subarray(at)]) : chunk.subarray(at);
          const end = head.indexOf(HEAD_END);
          if (end < 0) return;
          const text = head.subarray(0, end).toString('latin1');
          const m = /content-length: *(\\d+)/i.exec(text);
          if (!text.startsWith('HTTP/1.1 200') || !m) return reject(new Error(text));
          const consumed = head.length - (chunk.length - at);
          at += end + 4 - consumed;
          left = Number(m[1]);
          head = null;
        }
        const take = Math.min(left, chunk.length - at);
        left -= take;
        at += take;
        if (left > 0) return;
        left = -1;
        if (n >= warmup) out.push(performance.now() - t0);
        if (++n >= warmup + requests) {
          sock.end();
          return resolve(out);
        }
        send();
      }
    });
  });
}
Promise.all(Array.from({ length: clients }, client)).then(
  (all) => parentPort.postMessage({ samples: all.flat() }),
  (e) => parentPort.postMessage({ error: String(e) }),
);
`;

function loadTest(port: number, path: string, headers = ''): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const w = new Worker(LOAD_SCRIPT, {
      eval: true,
      workerData: {
        port,
        clients: CLIENTS,
        requests: REQUESTS_PER_CLIENT,
        warmup: WARMUP_PER_CLIENT,
        path,
        headers,
      },
    });
    w.once('message', (m: { samples?: number[]; error?: string }) => {
      void w.terminate();
      if (m.error) reject(new Error(m.error));
      else resolve(m.samples!);
    });
    w.once('error', reject);
  });
}

export async function serve<T>(
  jobs: number,
  fn: (base: string, cfg: LoadedConfig) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-bench-'));
  const file = join(dir, 'jobs.yaml');
  writeFileSync(file, `${generateJobFile(jobs)}web:\n  listen:\n    - http://127.0.0.1:0\n`);
  setLogLevel(LEVELS.ERROR);
  const cfg = loadConfig(file);
  const ctx = context(cfg);
  const server = await startWebServer(ctx, cfg.web!, new Logger('cronstable'));
  try {
    return await fn(server.urls[0]!, cfg);
  } finally {
    await server.stop();
    await ctx.scheduler.stop(0);
    rmSync(dir, { recursive: true, force: true });
  }
}

const ROOT = join(import.meta.dirname, '..');

async function statusUnderOverload(jobs: number, seconds: number): Promise<{ p99: number; missed: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-bench-'));
  const lines = Array.from(
    { length: jobs },
    (_, i) => `  - name: busy-${i}\n    command: /bin/true\n    schedule: "* * * * * * *"\n`,
  );
  writeFileSync(
    join(dir, 'jobs.yaml'),
    `web:\n  listen:\n    - http://127.0.0.1:0\njobs:\n${lines.join('')}`,
  );
  const child = spawn(
    process.execPath,
    [join(ROOT, 'dist', 'cronstable.mjs'), '-c', join(dir, 'jobs.yaml')],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let err = '';
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
    if (err.length > 100_000) err = err.slice(-10_000);
  });
  try {
    let base: string | null = null;
    for (let i = 0; i < 200 && base === null; i++) {
      base = /web: started listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err)?.[1] ?? null;
      if (base === null) await new Promise((r) => setTimeout(r, 50));
    }
    if (base === null) throw new Error('the daemon did not start its web listener');
    const samples: number[] = [];
    const end = performance.now() + seconds * 1000;
    while (performance.now() < end) {
      const t0 = performance.now();
      const res = await fetch(`${base}/status`, { headers: { accept: 'application/json' } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`/status answered ${res.status}`);
      samples.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 100));
    }
    const node = (await (await fetch(`${base}/node`)).json()) as { overload?: { missed_fires: number } };
    return { p99: p99(samples), missed: node.overload?.missed_fires ?? 0 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<Metric[]> {
  const overload = await statusUnderOverload(200, Number(process.env.BENCH_OVERLOAD_SECONDS ?? 20));
  const [status, statusGzip] = await serve(3000, async (base) => {
    const port = Number(new URL(base).port);
    const plain = p99(await loadTest(port, '/status'));
    const gzip = p99(await loadTest(port, '/status', 'Accept-Encoding: gzip\r\n'));
    return [plain, gzip];
  });
  const calendar = await serve(300, async (base) => {
    let events = 0;
    const seconds = await bestOf(3, async () => {
      const res = await fetch(`${base}/calendar.ics?days=14`);
      const text = await res.text();
      if (res.status !== 200) throw new Error(`calendar answered ${res.status}`);
      events = text.split('BEGIN:VEVENT').length - 1;
    });
    if (events === 0) throw new Error('the calendar feed has no events');
    return seconds;
  });
  return [
    { metric: 'web.status_p99_3k', value: Number((status / 1000).toFixed(4)), unit: 's', budget: 0.02 },
    // Same load from clients that accept gzip (most HTTP libraries; curl only with --compressed).
    { metric: 'web.status_p99_3k_gzip', value: Number((statusGzip / 1000).toFixed(4)), unit: 's' },
    { metric: 'web.calendar_300x14d', value: Number(calendar.toFixed(4)), unit: 's' },
    {
      metric: 'web.status_p99_overload_ms',
      value: Number(overload.p99.toFixed(1)),
      unit: 'ms',
      budget: 250,
    },
    { metric: 'web.overload_missed_fires', value: overload.missed, unit: 'fires' },
  ];
}

// `npx tsx bench/web.bench.ts` runs this group alone.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  for (const m of await run()) process.stdout.write(`${JSON.stringify(m)}\n`);
}
