// A real daemon core for web tests: the real Scheduler and launcher over a temp YAML config,
// a WebContext wired like the daemon's, and the web server on loopback.
import { join } from 'node:path';
import type { WebContext } from '../../src/api/context.ts';
import { jobSetId } from '../../src/cluster/jobset.ts';
import type { WebSection } from '../../src/config/file-schema.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { LoadedConfig } from '../../src/config/types.ts';
import { mountMcp } from '../../src/daemon/mcp-load.ts';
import { launch } from '../../src/exec/index.ts';
import { Metrics } from '../../src/metrics/index.ts';
import { Scheduler } from '../../src/scheduler/scheduler.ts';
import { type Clock, RealClock } from '../../src/util/clock.ts';
import { Logger, type LogRecord, setSink } from '../../src/util/log.ts';
import { startWebServer, type WebServer } from '../../src/web/server.ts';
import { writeTree } from '../helpers/tmp.ts';

export const job = (name: string, command: string, schedule: string, extra: string[] = []) =>
  [
    `  - name: ${name}`,
    `    command: ${JSON.stringify(command)}`,
    `    schedule: "${schedule}"`,
    ...extra.map((l) => `    ${l}`),
  ].join('\n');

export interface Harness {
  cfg: LoadedConfig;
  ctx: WebContext;
  scheduler: Scheduler;
  metrics: Metrics;
  server: WebServer;
  base: string;
  logs: string[];
  dir: string;
  get(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  post(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  stop(): Promise<void>;
}

/** Loads `jobs:` + `web:` YAML from a temp dir (files in `extraFiles` land beside it). */
export function loadWebConfig(jobsYaml: string, webYaml: string, extraFiles: Record<string, string> = {}) {
  const dir = writeTree({ 'c.yaml': `jobs:\n${jobsYaml}\nweb:\n${webYaml}\n`, ...extraFiles }, true);
  return { dir, cfg: loadConfig(join(dir, 'c.yaml'), { cwd: dir }) };
}

export function buildContext(cfg: LoadedConfig, clock: Clock = new RealClock()) {
  const scheduler = new Scheduler({
    clock,
    log: new Logger('cronstable'),
    launch,
    report: async () => {},
    launchOptions: { sinks: { stdout: () => {}, stderr: () => {} } },
  });
  scheduler.load(cfg.jobs);
  scheduler.start();
  const metrics = new Metrics({ version: '9.9.9-test' });
  const ctx: WebContext = {
    version: '9.9.9-test',
    hostname: 'test-host',
    clock,
    config: () => cfg,
    jobSetId: () => jobSetId(cfg.jobs),
    scheduler,
    store: null,
    cluster: () => ({ enabled: false, nodeName: '' }),
    metrics,
    configReload: () => ({ successful: true, atMs: 1_700_000_000_000 }),
  };
  metrics.attach(ctx);
  return { ctx, scheduler, metrics };
}

export const LOOPBACK = '  listen:\n    - http://127.0.0.1:0';

export async function startHarness(
  jobsYaml: string,
  webYaml = LOOPBACK,
  /** `wire` plugs the parts a test brings (a store, a DAG API) into the context before the server starts. */
  opts: { files?: Record<string, string>; clock?: Clock; wire?: (ctx: WebContext) => void } = {},
): Promise<Harness> {
  const logs: string[] = [];
  setSink((r: LogRecord) => logs.push(`${r.levelName} ${r.message}`));
  const { dir, cfg } = loadWebConfig(jobsYaml, webYaml, opts.files);
  const { ctx, scheduler, metrics } = buildContext(cfg, opts.clock);
  opts.wire?.(ctx);
  const server = await startWebServer(ctx, cfg.web as WebSection, new Logger('cronstable'), {
    mcp: mountMcp,
  });
  const base = server.urls.find((u) => u.startsWith('http://')) ?? '';
  const call =
    (method: string) =>
    (path: string, init: RequestInit & { token?: string } = {}) => {
      const headers = new Headers(init.headers);
      if (init.token !== undefined) headers.set('authorization', `Bearer ${init.token}`);
      return fetch(base + path, { ...init, method, headers });
    };
  return {
    cfg,
    ctx,
    scheduler,
    metrics,
    server,
    base,
    logs,
    dir,
    get: call('GET'),
    post: call('POST'),
    async stop() {
      await server.stop();
      await scheduler.stop(2_000);
      setSink(null);
    },
  };
}

/** Reads a server-sent event stream to its end (or until `untilEvent` arrives), with a deadline. */
export async function readSse(
  res: Response,
  opts: { timeoutMs?: number } = {},
): Promise<{ event: string; data: unknown }[]> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  const events: { event: string; data: unknown }[] = [];
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`SSE stream did not end; got ${JSON.stringify(events)}`);
    const chunk = await Promise.race([
      reader.read(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('SSE read timed out')), left)),
    ]);
    if (chunk.done) break;
    buf += dec.decode(chunk.value, { stream: true });
    let idx = buf.indexOf('\n\n');
    while (idx >= 0) {
      const block = buf.slice(0, idx);
      buf = buf.slice(idx + 2);
      idx = buf.indexOf('\n\n');
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (block.startsWith(':')) continue;
      events.push({ event, data: data === '' ? null : JSON.parse(data) });
    }
  }
  return events;
}

export async function waitUntil(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
