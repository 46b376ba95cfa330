// webui: the dashboard in headless Chromium (spec 06 §9; issue 13 item 8), the real bundle (src/webui built by
// `npm run bench`) served by a local HTTP server that answers the API shape for 500 jobs.
//
// webui.table_render_500_{p50,p95}_ms: one refresh of the jobs view with a changed /jobs answer (every answer
// moves the countdowns; about 25 jobs finish a new run, a few start or stop), from the moment the page has the
// parsed JSON until the render it causes is committed and laid out (a message task posted at that moment runs
// after the render's microtasks and forces layout).
// Refreshes are triggered with the page's own `g` key, 120 of them. Budget 16 ms (one frame).
//
// webui.log_append_5k_{p50,p95}_ms: the job drawer's Logs tab holding 5,000 lines while the stream delivers one
// more line every 60 ms: the task that appends it, from its start to the DOM committed and laid out. 150
// appends. Budget 2 ms.
//
// The page is instrumented from outside only (an init script wraps Response.json and setTimeout to timestamp
// task starts); nothing in the dashboard knows it is measured.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../scripts/chromium.ts';
import { dashboardHtml } from '../src/web/page.ts';
import type { Metric } from './metric.ts';

const JOBS = 500;
const REFRESHES = 120;
const LOG_LINES = 5000;
const APPENDS = 150;
const LOG_JOB = 'job-0007';

interface Job {
  name: string;
  enabled: boolean;
  schedule: string;
  command: string;
  captureStdout: boolean;
  captureStderr: boolean;
  utc: boolean;
  timezone: string | null;
  running: boolean;
  pids: number[];
  scheduled_in: number | null;
  never_fires: boolean;
  schedule_findings: never[];
  last_run: null | {
    outcome: string;
    exit_code: number | null;
    started_at: string;
    finished_at: string;
    duration: number;
    fail_reason: string | null;
    resources: null;
  };
  history: Array<{ outcome: string; duration: number }>;
}

const SCHEDULES = [
  '*/5 * * * *',
  '0 * * * *',
  '15 3 * * *',
  '30 2 * * 1-5',
  '0 0 1 * *',
  '*/10 * * * * *',
  '30 12 LW * *',
];
const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin', null];

/** A deterministic job set, then one step of change per answer. */
class Fleet {
  readonly jobs: Job[] = [];
  private step = 0;
  constructor() {
    for (let i = 0; i < JOBS; i++) {
      const tz = ZONES[i % ZONES.length]!;
      this.jobs.push({
        name: `job-${String(i).padStart(4, '0')}`,
        enabled: i % 23 !== 0,
        schedule: SCHEDULES[i % SCHEDULES.length]!,
        command: `/opt/jobs/run-${i}.sh --batch ${i % 7} --verbose`,
        captureStdout: true,
        captureStderr: true,
        utc: tz === 'UTC',
        timezone: tz,
        running: i === 7,
        pids: i === 7 ? [4242] : [],
        scheduled_in: 30 + ((i * 37) % 3600),
        never_fires: false,
        schedule_findings: [],
        last_run: null,
        history: [],
      });
    }
    for (let k = 0; k < 20; k++) this.finishSome(k * 25, 25);
  }

  private finishSome(from: number, count: number): void {
    const now = Date.now();
    for (let k = 0; k < count; k++) {
      const j = this.jobs[(from + k) % JOBS]!;
      if (!j.enabled || j.name === LOG_JOB) continue;
      const fail = (from + k + this.step) % 9 === 0;
      const duration = 0.2 + ((from * 7 + k) % 50) / 10;
      j.last_run = {
        outcome: fail ? 'failure' : 'success',
        exit_code: fail ? 2 : 0,
        started_at: new Date(now - duration * 1000).toISOString(),
        finished_at: new Date(now).toISOString(),
        duration,
        fail_reason: fail ? 'exit code 2' : null,
        resources: null,
      };
      j.history = [...j.history, { outcome: j.last_run.outcome, duration }].slice(-20);
    }
  }

  /** The next /jobs answer: countdowns move, ~25 jobs finish a run, two flip running. */
  answer(): string {
    this.step++;
    for (const j of this.jobs)
      if (j.scheduled_in !== null) j.scheduled_in = Math.max(1, j.scheduled_in - 0.7);
    this.finishSome(this.step * 25, 25);
    for (const i of [(this.step * 13) % JOBS, (this.step * 29 + 5) % JOBS]) {
      const j = this.jobs[i]!;
      if (!j.enabled || j.name === LOG_JOB) continue;
      j.running = !j.running;
      j.pids = j.running ? [1000 + i] : [];
    }
    return JSON.stringify(this.jobs);
  }
}

function sse(res: ServerResponse, lines: number, appends: number, everyMs: number): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  const line = (n: number): string =>
    `event: line\ndata: ${JSON.stringify({ stream: n % 11 === 0 ? 'stderr' : 'stdout', line: `2026-12-01T10:00:00Z [worker ${n % 4}] processed batch ${n} \u001b[32mok\u001b[0m rows=${(n * 7919) % 100000}` })}\n\n`;
  let buf = '';
  for (let n = 1; n <= lines; n++) buf += line(n);
  res.write(buf);
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  // the trickle starts once the page has had time to take in the replay
  const start = setTimeout(() => {
    timer = setInterval(() => {
      if (sent >= appends) return;
      res.write(line(lines + ++sent));
    }, everyMs);
  }, 3000);
  res.on('close', () => {
    clearTimeout(start);
    clearInterval(timer);
  });
}

function startServer(fleet: Fleet): Promise<{ base: string; close(): Promise<void> }> {
  const html = dashboardHtml();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const json = (body: string): void => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(body);
    };
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html);
    } else if (path === '/jobs') json(fleet.answer());
    else if (path === '/cluster') json('{"enabled":false,"peers":[]}');
    else if (path === '/node')
      json('{"node_name":"bench","resources":{"cpu_percent":12.5,"cpu_count":2,"mem_percent":41.2}}');
    else if (path === '/dags') json('[]');
    else if (path === '/version') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('bench\n');
    } else if (path === '/job-set-id') json('{"job_set_id":"v1:0123456789abcdef0123"}');
    else if (path === `/jobs/${LOG_JOB}/logs`) sse(res, LOG_LINES, APPENDS + 20, 60);
    else if (/^\/jobs\/[^/]+\/runs$/.test(path)) json('{"name":"x","runs":[],"stats":{}}');
    else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      resolve({
        base: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

// Runs in the page before the bundle: timestamps (a) the moment a /jobs answer is parsed and (b) the start of
// every timer task, and records how long until that refresh is rendered and laid out / the next DOM commit in
// the log view is laid out.
const PROBE = `{
  const samples = { table: [], log: [] };
  window.__bench = samples;
  let jobsAt = -1;
  let taskAt = -1;
  // The refresh's render runs in microtasks right after the answer is handed over; a message task posted at
  // that moment runs after them, where forcing layout completes the refresh's work.
  const done = new MessageChannel();
  done.port1.onmessage = () => {
    const script = performance.now() - jobsAt;
    void document.body.offsetHeight;
    samples.table.push(performance.now() - jobsAt);
    samples.script.push(script);
    jobsAt = -1;
  };
  samples.script = [];
  const json = Response.prototype.json;
  Response.prototype.json = async function () {
    const v = await json.call(this);
    if (new URL(this.url).pathname === '/jobs') {
      jobsAt = performance.now();
      done.port2.postMessage(0);
    }
    return v;
  };
  const st = window.setTimeout;
  window.setTimeout = function (fn, ms, ...args) {
    if (typeof fn !== 'function') return st(fn, ms, ...args);
    return st(function () { taskAt = performance.now(); return fn.apply(this, args); }, ms);
  };
  const watch = () => {
    const log = document.querySelector('[data-testid=logview]');
    if (log && !log.__watched) {
      log.__watched = true;
      new MutationObserver(() => {
        if (taskAt < 0) return;
        void log.scrollHeight;
        samples.log.push({ ms: performance.now() - taskAt, lines: log.querySelectorAll('.logline').length });
        taskAt = -1;
      }).observe(log, { subtree: true, childList: true, characterData: true });
    }
  };
  new MutationObserver(watch).observe(document, { subtree: true, childList: true });
}`;

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * (s.length - 1) + 0.5))]!;
}

const round = (x: number): number => Math.round(x * 100) / 100;

export async function run(): Promise<Metric[]> {
  const fleet = new Fleet();
  const server = await startServer(fleet);
  const profile = mkdtempSync(join(tmpdir(), 'cronstable-bench-webui-'));
  const context = await launchChromium(profile, {
    viewport: { width: 1600, height: 1000 },
    colorScheme: 'dark',
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.addInitScript(PROBE);
    // a slow automatic refresh, so the measured refreshes are the ones `g` asks for
    await page.addInitScript(`try { localStorage.setItem('cronstable.refresh', '10') } catch {}`);
    await page.goto(`${server.base}/`);
    await page.waitForSelector('tr.job');
    const tableSamples = (): Promise<number[]> => page.evaluate('window.__bench.table') as Promise<number[]>;
    // warm-up refreshes (JIT), then the measured ones
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('g');
      await page.waitForTimeout(60);
    }
    const warm = (await tableSamples()).length;
    for (let i = 0; i < REFRESHES; i++) {
      const before = (await tableSamples()).length;
      await page.keyboard.press('g');
      const end = Date.now() + 5000;
      while ((await tableSamples()).length === before && Date.now() < end) await page.waitForTimeout(5);
      await page.waitForTimeout(40);
    }
    const table = (await tableSamples()).slice(warm);

    await page.goto(`${server.base}/#job/${LOG_JOB}/logs`);
    await page.waitForSelector('[data-testid=logview] .logline');
    const logSamples = (): Promise<Array<{ ms: number; lines: number }>> =>
      page.evaluate('window.__bench.log') as Promise<Array<{ ms: number; lines: number }>>;
    const end = Date.now() + 60_000;
    for (;;) {
      const full = (await logSamples()).filter((s) => s.lines >= LOG_LINES);
      if (full.length >= APPENDS + 5 || Date.now() > end) break;
      await page.waitForTimeout(250);
    }
    // the first appends after the 5,000-line replay are warm-up
    const log = (await logSamples())
      .filter((s) => s.lines >= LOG_LINES)
      .slice(5)
      .map((s) => s.ms);
    if (process.env.BENCH_VERBOSE)
      process.stderr.write(
        `table ${JSON.stringify(table.map(round))}\nlog ${JSON.stringify(log.map(round))}\n`,
      );
    if (process.env.BENCH_VERBOSE)
      process.stderr.write(
        `script ${JSON.stringify(await page.evaluate('window.__bench.script.map(Math.round)'))}\n`,
      );
    if (table.length < REFRESHES / 2 || log.length < APPENDS / 2)
      throw new Error(`too few samples: ${table.length} refreshes, ${log.length} appends`);
    return [
      { metric: 'webui.table_render_500_p50_ms', value: round(quantile(table, 0.5)), unit: 'ms', budget: 16 },
      {
        metric: 'webui.table_render_500_p95_ms',
        value: round(quantile(table, 0.95)),
        unit: 'ms',
        budget: 16,
      },
      { metric: 'webui.log_append_5k_p50_ms', value: round(quantile(log, 0.5)), unit: 'ms', budget: 2 },
      { metric: 'webui.log_append_5k_p95_ms', value: round(quantile(log, 0.95)), unit: 'ms', budget: 2 },
    ];
  } finally {
    await context.close().catch(() => {});
    await server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
