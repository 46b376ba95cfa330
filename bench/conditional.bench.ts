// Conditional GET and gzip (spec 10 §4.10, issue 32's acceptance), on a web server with 3,000 jobs
// whose timers never fire (the `web` group's harness), measured by a client in a worker thread (one
// keep-alive connection, requests in turn) so it never shares the server's event loop.
//
// web.jobs_304_over_version_ms: median of `GET /jobs` with a matching If-None-Match less the median of
//   `GET /version`, the two interleaved request by request (budget 1 ms).
// web.metrics_3k_plain_bytes / _gzip_bytes / _gzip_ratio: the size of one `/metrics` scrape of the
//   3,000 jobs as it crosses the wire, plain and gzipped (budget: ratio >= 10).
// web.metrics_3k_plain_ms / _gzip_ms: median time to the last byte of a scrape that renders anew (each
//   one waits out the one-second shared product), plain and gzipped, alternated; the plain scrape is
//   today's (pre-gzip) path, so the budget of the gzipped one is the plain median.
import { Worker } from 'node:worker_threads';
import type { Metric } from './metric.ts';
import { serve } from './web.bench.ts';

const JOBS = 3000;

// Plain JS for the worker: each step is one request on the shared keep-alive socket, after an optional pause.
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const { port, steps } = workerData;
function one(step) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request({ host: '127.0.0.1', port, path: step.path, headers: step.headers, agent }, (res) => {
      let bytes = 0;
      res.on('data', (c) => { bytes += c.length; });
      res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode, bytes, etag: res.headers.etag ?? null }));
    });
    req.on('error', reject);
    req.end();
  });
}
(async () => {
  const out = [];
  for (const step of steps) {
    if (step.pauseMs) await new Promise((r) => setTimeout(r, step.pauseMs));
    out.push(await one(step));
  }
  parentPort.postMessage({ out });
})().catch((e) => parentPort.postMessage({ error: String(e) }));
`;

interface Step {
  path: string;
  headers?: Record<string, string>;
  pauseMs?: number;
}
interface Answer {
  ms: number;
  status: number;
  bytes: number;
  etag: string | null;
}

function client(port: number, steps: Step[]): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const w = new Worker(CLIENT, { eval: true, workerData: { port, steps } });
    w.once('message', (m: { out?: Answer[]; error?: string }) => {
      void w.terminate();
      if (m.error) reject(new Error(m.error));
      else resolve(m.out!);
    });
    w.once('error', reject);
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

function expectStatus(answers: Answer[], status: number, what: string): void {
  const bad = answers.find((a) => a.status !== status);
  if (bad) throw new Error(`${what} answered ${bad.status}, not ${status}`);
}

export async function run(): Promise<Metric[]> {
  return serve(JOBS, async (base) => {
    const port = Number(new URL(base).port);
    const tag = (await client(port, [{ path: '/jobs' }]))[0]!.etag;
    if (!tag) throw new Error('/jobs sent no ETag');
    const ROUNDS = Number(process.env.BENCH_CONDITIONAL_ROUNDS ?? 2000);
    const steps: Step[] = [];
    for (let i = 0; i < ROUNDS; i++)
      steps.push({ path: '/version' }, { path: '/jobs', headers: { 'if-none-match': tag } });
    const answers = (await client(port, steps)).slice(200);
    const version = answers.filter((_, i) => i % 2 === 0);
    const notModified = answers.filter((_, i) => i % 2 === 1);
    expectStatus(version, 200, '/version');
    expectStatus(notModified, 304, '/jobs with its tag');

    const SCRAPES = Number(process.env.BENCH_CONDITIONAL_SCRAPES ?? 12);
    const scrapes: Step[] = [
      { path: '/metrics' },
      { path: '/metrics', headers: { 'accept-encoding': 'gzip' } },
    ];
    for (let i = 0; i < SCRAPES; i++)
      scrapes.push(
        { path: '/metrics', pauseMs: 1100 },
        { path: '/metrics', headers: { 'accept-encoding': 'gzip' }, pauseMs: 1100 },
      );
    const scraped = (await client(port, scrapes)).slice(2);
    expectStatus(scraped, 200, '/metrics');
    const plain = scraped.filter((_, i) => i % 2 === 0);
    const gzip = scraped.filter((_, i) => i % 2 === 1);
    const plainBytes = plain[0]!.bytes;
    const gzipBytes = gzip[0]!.bytes;
    const round = (x: number, d = 3) => Number(x.toFixed(d));
    return [
      {
        metric: 'web.jobs_304_over_version_ms',
        value: round(median(notModified.map((a) => a.ms)) - median(version.map((a) => a.ms))),
        unit: 'ms',
        budget: 1,
      },
      { metric: 'web.version_median_ms', value: round(median(version.map((a) => a.ms))), unit: 'ms' },
      { metric: 'web.metrics_3k_plain_bytes', value: plainBytes, unit: 'B' },
      { metric: 'web.metrics_3k_gzip_bytes', value: gzipBytes, unit: 'B' },
      { metric: 'web.metrics_3k_gzip_ratio', value: round(plainBytes / gzipBytes, 1), unit: 'x', budget: 10 },
      { metric: 'web.metrics_3k_plain_ms', value: round(median(plain.map((a) => a.ms)), 1), unit: 'ms' },
      {
        metric: 'web.metrics_3k_gzip_ms',
        value: round(median(gzip.map((a) => a.ms)), 1),
        unit: 'ms',
        budget: round(median(plain.map((a) => a.ms)), 1),
      },
    ];
  });
}

// `npx tsx bench/conditional.bench.ts` runs this group alone.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  for (const m of await run()) process.stdout.write(`${JSON.stringify(m)}\n`);
}
