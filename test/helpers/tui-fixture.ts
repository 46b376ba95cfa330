// The TUI's component tests: the spec 08 §7 fixture as `/jobs` payloads, a small real HTTP listener serving
// the routes the TUI reads (recording every request), and an App rendered by ink-testing-library around a
// real Controller talking to it.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import type { WhoamiBody } from '../../src/api/wire/access.schema.ts';
import type { ApiJob } from '../../src/dashboard/types.ts';
import { App } from '../../src/tui/app/App.tsx';
import { Controller } from '../../src/tui/app/controller.ts';
import { Painter } from '../../src/tui/app/painter.ts';
import { createState, Store, type TuiState } from '../../src/tui/app/state.ts';
import { ApiClient } from '../../src/tui/data/client.ts';
import { DEFAULT_PREFS } from '../../src/tui/data/prefs.ts';
import { VIEWS } from '../../src/tui/views/registry.ts';
import { apiJob } from './api-job.ts';
import { until } from './until.ts';

const NOW = Date.parse('2026-07-05T09:00:00Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString();
const ok = (s: number, d = 0.4) => ({
  outcome: 'success' as const,
  exit_code: 0,
  started_at: ago(s + d),
  finished_at: ago(s),
  duration: d,
  fail_reason: null,
  resources: null,
});

export const FIXTURE_NOW = NOW;

/** The six jobs of spec 08 §7. */
export function fixtureJobs(): ApiJob[] {
  return [
    apiJob('heartbeat', {
      schedule: '* * * * * * *',
      command: 'echo "beat $(date -u)"',
      scheduled_in: 0.5,
      last_run: ok(1),
      history: Array.from({ length: 12 }, () => ({ outcome: 'success' as const, duration: 0.4 })),
    }),
    apiJob('nightly-backup', {
      schedule: '0 3 * * *',
      command: 'echo "backing up /var/lib/app ..."',
      scheduled_in: 7200,
      last_run: {
        outcome: 'failure',
        exit_code: 69,
        started_at: ago(25),
        finished_at: ago(24),
        duration: 0.949,
        fail_reason: 'failsWhen=nonzeroReturn and retcode=69',
        resources: null,
      },
      history: [{ outcome: 'failure', duration: 0.949 }],
    }),
    apiJob('long-sleep', {
      schedule: '*/30 * * * *',
      command: 'sleep 3600',
      running: true,
      pids: [42],
      scheduled_in: 900,
    }),
    apiJob('report-daily', {
      schedule: '0 6 * * mon-fri',
      command: "printf '\\033[32mreport'",
      scheduled_in: 18000,
      last_run: ok(30, 0.011),
      history: [{ outcome: 'success', duration: 0.011 }],
    }),
    apiJob('colour-probe', {
      schedule: '*/5 * * * *',
      command: 'printf x',
      scheduled_in: 240,
      last_run: ok(7, 0.387),
      history: [{ outcome: 'success', duration: 0.387 }],
    }),
    apiJob('legacy-sync', {
      schedule: '15 2 * * *',
      command: 'echo never',
      enabled: false,
      scheduled_in: null,
    }),
  ];
}

/** The `stats` of a `/runs` answer for one successful 0.4 s run. */
export const ONE_RUN_STATS = {
  total: 1,
  success: 1,
  failure: 0,
  cancelled: 0,
  unknown: 0,
  success_rate: 1,
  avg_duration: 0.4,
  min_duration: 0.4,
  max_duration: 0.4,
  last_duration: 0.4,
};

/** `GET /whoami` answers for a token of the given scopes (put one in `FixtureDaemon.routes['/whoami']`). */
export function whoamiFor(...scopes: ('view' | 'control' | 'approve')[]): WhoamiBody {
  return {
    authenticated: true,
    label: `ops-${scopes.join('-')}`,
    scopes,
    allScopes: scopes.length === 3,
    pairLinkBase: 'http://127.0.0.1:1',
  };
}

export interface FakeRequest {
  method: string;
  url: string;
  auth: string | undefined;
}

/**
 * A loopback HTTP server with the daemon's read routes and run/cancel, recording requests. It has no `/whoami`
 * (a 404, as from a daemon older than scopes) unless a test adds one to `routes`.
 */
export class FixtureDaemon {
  readonly requests: FakeRequest[] = [];
  jobs: ApiJob[] = fixtureJobs();
  logs: Record<string, string> = {};
  token: string | null = null;
  /** extra or replaced JSON answers by exact URL (path and query), checked before the built-in routes */
  routes: Record<string, unknown> = {};
  /** more routes (a test's DAGs, state): answers and returns true when it took the request */
  extra: ((req: IncomingMessage, url: string, res: import('node:http').ServerResponse) => boolean) | null =
    null;
  private server: Server | null = null;
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }

  private handle(req: IncomingMessage, res: import('node:http').ServerResponse): void {
    const url = req.url ?? '/';
    this.requests.push({ method: req.method ?? 'GET', url, auth: req.headers.authorization });
    if (this.token !== null && req.headers.authorization !== `Bearer ${this.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const json = (v: unknown, status = 200) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
    if (url in this.routes) return void json(this.routes[url]);
    if (this.extra?.(req, url, res)) return;
    if (url === '/jobs') return void json(this.jobs);
    if (url === '/version') return void res.end('1.2.3');
    if (url === '/job-set-id') return void res.end('v1:ec249bf0123');
    if (url === '/cluster') return void json({ enabled: false, peers: [] });
    if (url === '/node')
      return void json({ node_name: 'n1', resources: { cpu_percent: 29, cpu_count: 2, mem_percent: 2.3 } });
    const m = /^\/jobs\/([^/]+)\/(start|cancel|logs|runs|resources)$/.exec(url);
    if (m) {
      const name = decodeURIComponent(m[1]!);
      const job = this.jobs.find((j) => j.name === name);
      if (!job) return void json({ error: 'no such job' }, 404);
      if (m[2] === 'start') return void json({ started: name }, job.enabled ? 200 : 409);
      if (m[2] === 'cancel') return void json({ cancelled: name }, job.running ? 200 : 409);
      if (m[2] === 'runs')
        return void json({
          name,
          runs: job.last_run ? [job.last_run] : [],
          stats: ONE_RUN_STATS,
        });
      if (m[2] === 'resources') return void json({ name, monitored: false, interval: 1, live: [], runs: [] });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const line of (this.logs[name] ?? '').split('\n').filter(Boolean)) {
        const [stream, text] = line.startsWith('E:') ? ['stderr', line.slice(2)] : ['stdout', line];
        res.write(`event: line\ndata: ${JSON.stringify({ stream, line: text })}\n\n`);
      }
      res.end('event: end\ndata: {}\n\n');
      return;
    }
    json({ error: '404: Not Found' }, 404);
  }
}

export interface Harness {
  ctl: Controller;
  store: Store;
  ink: ReturnType<typeof render>;
  raw: string[];
  painter: Painter;
  /** the screen's rows as painted, SGR included */
  frame(): string;
  /** the screen with SGR removed */
  text(): string;
  press(...keys: string[]): Promise<void>;
  settle(ms?: number): Promise<void>;
  /**
   * Waits (up to 5 s) until the screen shows every part: for what arrives over the loopback
   * daemon, whose answer a loaded machine may delay past any fixed wait.
   */
  shows(...parts: (string | RegExp)[]): Promise<void>;
  close(): void;
}

const SGR = /\u001b\[[0-9;]*m/g;

/** The fixture's prefs: the defaults, with the colours the surface tests spell out (carolina's, the old default). */
export const FIXTURE_PREFS = { ...DEFAULT_PREFS, theme: 'carolina' as const };

export function initialState(over: Partial<TuiState> = {}): TuiState {
  return createState(
    { now: NOW, mono: 1000, cols: 100, rows: 30, prefs: { ...FIXTURE_PREFS }, pollMs: 0, ascii: false },
    over,
  );
}

/** Renders the App (ink-testing-library feeds the keys) with the jobs already loaded. */
export function mountTui(daemon: FixtureDaemon, over: Partial<TuiState> = {}, home?: string): Harness {
  const store = new Store(initialState(over));
  const raw: string[] = [];
  let mono = 1000;
  const ctl = new Controller({
    client: new ApiClient(daemon.base, null),
    store,
    now: () => NOW,
    mono: () => mono,
    prefsPath: null,
    writeRaw: (t) => raw.push(t),
    quit: () => {},
    afterPoll: (c) => VIEWS.afterPoll(c),
    ...(home ? { home } : {}),
  });
  ctl.acceptJobs(daemon.jobs);
  mono += 1;
  const painter = new Painter(
    (t) => raw.push(t),
    () => 0,
    0,
  );
  const ink = render(createElement(App, { ctl, depth: '24', painter, hooks: { suspend: () => {} } }));
  const settle = (ms = 30) => new Promise<void>((r) => setTimeout(r, ms));
  const turns = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
  };
  const text = () => painter.screen().join('\n').replace(SGR, '');
  return {
    ctl,
    store,
    ink,
    raw,
    painter,
    frame: () => painter.screen().join('\n'),
    text,
    async press(...keys: string[]) {
      for (const k of keys) {
        ink.stdin.write(k);
        await turns(3);
      }
      await turns(6);
    },
    settle,
    async shows(...parts) {
      const all = (t: string) => parts.every((p) => (typeof p === 'string' ? t.includes(p) : p.test(t)));
      await until(
        `the screen to show ${parts.join(', ')}`,
        5000,
        async () => (all(text()) ? true : null),
        20,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; the screen:\n${text()}`);
      });
    },
    close: () => {
      ctl.stop();
      ink.unmount();
    },
  };
}

export const KEY = {
  enter: '\r',
  esc: '\u001b',
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
  end: '\u001b[F',
  ctrlK: '\u000b',
  ctrlC: '\u0003',
  ctrlU: '\u0015',
  backspace: '\u007f',
  tab: '\t',
} as const;
