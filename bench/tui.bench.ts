// The terminal dashboard (spec 08 §6.6, §10 budgets):
//   tui.board_repaint_ms: one repaint of a 500-job board at 120x40 after a state change (selection moves),
//     through React and Ink to the bytes written, p50 of 200 (budget 16 ms);
//   tui.log_append_ms: one line appended to a 10,000-line tail with its drawer open, repaint included,
//     p50 of 500 (budget 2 ms);
//   tui.first_paint_ms: the built `cronstable tui` in a pseudo-terminal against a loopback server with 500 jobs:
//     from the end of the first /jobs answer to the first frame showing the jobs (budget 300 ms);
//   tui.rss_mb: that process's RSS once the board is up (budget 80 MB).
import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pty from '@lydell/node-pty';
import type { ApiJob } from '../src/dashboard/types.ts';
import { Controller } from '../src/tui/app/controller.ts';
import { Painter } from '../src/tui/app/painter.ts';
import { createState, Store, type TuiState } from '../src/tui/app/state.ts';
import { ApiClient } from '../src/tui/data/client.ts';
import { DEFAULT_PREFS } from '../src/tui/data/prefs.ts';
import { LogTail } from '../src/tui/data/tail.ts';
import type { Metric } from './metric.ts';
import { percentile } from './metric.ts';
import { rssMb } from './proc.ts';

const ROOT = join(import.meta.dirname, '..');
const BUNDLE = join(ROOT, 'dist', 'cronstable.mjs');

export function jobsForBench(n: number): ApiJob[] {
  return jobs(n);
}

function jobs(n: number): ApiJob[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => ({
    name: `job-${String(i).padStart(4, '0')}`,
    enabled: i % 50 !== 0,
    schedule: `${i % 60} * * * *`,
    command: `echo run ${i} && sleep 0`,
    captureStdout: true,
    captureStderr: true,
    utc: true,
    timezone: 'UTC',
    running: i % 17 === 0,
    pids: [],
    scheduled_in: 30 + i,
    never_fires: false,
    last_run:
      i % 3 === 0
        ? null
        : {
            outcome: i % 23 === 0 ? 'failure' : 'success',
            exit_code: i % 23 === 0 ? 2 : 0,
            started_at: new Date(now - 60_000).toISOString(),
            finished_at: new Date(now - 59_000).toISOString(),
            duration: 1 + (i % 7),
            fail_reason: null,
            resources: null,
          },
    history: Array.from({ length: 10 }, (_, k) => ({
      outcome: 'success' as const,
      duration: 1 + ((i + k) % 5),
    })),
  }));
}

/** A terminal-shaped sink: Ink writes frames here; each write resolves the waiter. */
class Sink {
  columns = 120;
  rows = 40;
  isTTY = true;
  bytes = 0;
  private waiter: (() => void) | null = null;
  on() {
    return this;
  }
  off() {
    return this;
  }
  removeListener() {
    return this;
  }
  write(chunk: string): boolean {
    this.bytes += chunk.length;
    if (process.env.TUI_BENCH_DEBUG) process.stderr.write(chunk);
    const w = this.waiter;
    this.waiter = null;
    w?.();
    return true;
  }
  next(): Promise<void> {
    return new Promise((r) => {
      this.waiter = r;
    });
  }
}

/** Keys never arrive in the bench; Ink only needs a raw-mode-capable stream to listen on. */
class QuietStdin extends EventEmitter {
  isTTY = true;
  setRawMode(): this {
    return this;
  }
  setEncoding(): this {
    return this;
  }
  read(): null {
    return null;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  resume(): this {
    return this;
  }
  pause(): this {
    return this;
  }
}

function state(): TuiState {
  const base = { now: Date.now(), mono: performance.now(), cols: 120, rows: 40, prefs: { ...DEFAULT_PREFS } };
  return createState({ ...base, pollMs: 0, ascii: false });
}

async function mount(list: ApiJob[]) {
  // React's production build, as in the bundle (`npm run bench` does not set NODE_ENV).
  process.env.NODE_ENV ??= 'production';
  const { render } = await import('ink');
  const { createElement } = await import('react');
  const { App } = await import('../src/tui/app/App.tsx');
  const { VIEWS } = await import('../src/tui/views/registry.ts');
  const store = new Store(state());
  const ctl = new Controller({
    client: new ApiClient('http://127.0.0.1:9', null),
    store,
    now: Date.now,
    mono: () => performance.now(),
    prefsPath: null,
    writeRaw: () => {},
    quit: () => {},
    afterPoll: (c) => VIEWS.afterPoll(c),
  });
  ctl.acceptJobs(list);
  const sink = new Sink();
  const painter = new Painter(
    (t) => sink.write(t),
    () => performance.now(),
    0,
  );
  const stdin = new QuietStdin() as unknown as NodeJS.ReadStream;
  const ink = render(createElement(App, { ctl, depth: '24', painter, hooks: { suspend: () => {} } }), {
    stdout: sink as unknown as NodeJS.WriteStream,
    stdin,
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: 1000,
  });
  return { store, ctl, sink, ink };
}

async function boardRepaint(): Promise<number> {
  const list = jobs(500);
  const { store, sink, ink } = await mount(list);
  await new Promise((r) => setTimeout(r, 50));
  const samples: number[] = [];
  for (let i = 0; i < 220; i++) {
    const wrote = sink.next();
    const t0 = performance.now();
    store.set({ selected: list[(i * 7) % 40]!.name, mono: performance.now() });
    await wrote;
    if (i >= 20) samples.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 2));
  }
  ink.unmount();
  return percentile(samples, 0.5);
}

async function logAppend(): Promise<number> {
  const list = jobs(20);
  const { store, ctl, sink, ink } = await mount(list);
  const tail = new LogTail('/none', {
    client: ctl.deps.client,
    now: Date.now,
    onChange: () => {},
    cap: 10_000,
  });
  for (let i = 0; i < 10_000; i++)
    tail.push(i % 5 === 0 ? 'stderr' : 'stdout', `line ${i} \u001b[32mok\u001b[0m some text`);
  ctl.tail = tail;
  store.set({
    stack: [
      {
        kind: 'drawer',
        job: list[0]!.name,
        tab: 'logs',
        scroll: 0,
        search: '',
        searchFocused: false,
        match: -1,
      } as never,
    ],
  });
  await new Promise((r) => setTimeout(r, 50));
  const samples: number[] = [];
  for (let i = 0; i < 520; i++) {
    const wrote = sink.next();
    const t0 = performance.now();
    tail.push('stdout', `appended ${i}`);
    store.touch();
    await wrote;
    if (i >= 20) samples.push(performance.now() - t0);
  }
  ink.unmount();
  return percentile(samples, 0.5);
}

async function firstPaintAndRss(): Promise<{ paintMs: number; rss: number }> {
  const body = JSON.stringify(jobs(500));
  let answeredAt = 0;
  const server = createServer((req, res) => {
    if (req.url === '/jobs') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body, () => {
        if (answeredAt === 0) answeredAt = performance.now();
      });
      return;
    }
    if (req.url === '/version') return void res.end('bench');
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"enabled":false,"peers":[]}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'CI') env[k] = v;
  const p = pty.spawn(process.execPath, [BUNDLE, 'tui', '--url', `http://127.0.0.1:${port}`, '--no-boot'], {
    cols: 120,
    rows: 40,
    env: { ...env, TERM: 'xterm-256color', COLORTERM: 'truecolor', HOME: '/tmp' },
  });
  let paintedAt = 0;
  let out = '';
  const painted = new Promise<void>((resolve) => {
    p.onData((d) => {
      out += d;
      if (paintedAt === 0 && answeredAt > 0 && out.includes('500 jobs') && out.includes('job-0001')) {
        paintedAt = performance.now();
        resolve();
      }
    });
  });
  await Promise.race([painted, new Promise((r) => setTimeout(r, 10_000))]);
  await new Promise((r) => setTimeout(r, 1500));
  const rss = rssMb(p.pid);
  p.write('q');
  await new Promise((r) => setTimeout(r, 300));
  p.kill();
  server.close();
  return { paintMs: paintedAt > 0 ? paintedAt - answeredAt : Number.NaN, rss };
}

export async function runRepaintOnly(): Promise<number[]> {
  return [await boardRepaint(), await logAppend()];
}

export async function run(): Promise<Metric[]> {
  const repaint = await boardRepaint();
  const append = await logAppend();
  const { paintMs, rss } = await firstPaintAndRss();
  return [
    { metric: 'tui.board_repaint_ms', value: Math.round(repaint * 100) / 100, unit: 'ms', budget: 16 },
    { metric: 'tui.log_append_ms', value: Math.round(append * 100) / 100, unit: 'ms', budget: 2 },
    { metric: 'tui.first_paint_ms', value: Math.round(paintMs), unit: 'ms', budget: 300 },
    { metric: 'tui.rss_mb', value: Math.round(rss * 10) / 10, unit: 'MB', budget: 80 },
  ];
}
