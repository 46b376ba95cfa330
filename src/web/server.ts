// The web server (spec 06): one Hono app served on every `web.listen` address.
//
// Daemon wiring (spec 06 §1.3-§1.4):
//   const ctx: WebContext = { ..., scheduler, metrics };                // scheduler: a SchedulerView
//   const metrics = new Metrics({ version, durationBuckets });          // once per process
//   metrics.attach(ctx);                                                // counters survive server restarts
//   try { web = await startWebServer(ctx, cfg.web, log) }               // after the cluster manager
//   catch (e) { if (!(e instanceof WebConfigError)) throw e;
//     log.error(`Error in the web configuration, so not starting the web API: ${e.message}`) }
//   reload: web section changed (or mcp) -> await web.stop(), start again; WebConfigError -> retry next reload.
//   shutdown: stop the web server after running jobs have finished.

import { apiBodies } from '../api/bodies.ts';
import type { MetricsRegistry, WebContext } from '../api/context.ts';
import type { ApiDeps } from '../api/deps.ts';
import { JobResourceSampler } from '../api/jobresources.ts';
import { NodeSampler } from '../api/node.ts';
import { StatusView } from '../api/status.ts';
import type { WebSection } from '../config/file-schema.ts';
import { loadTlsFiles, tlsFingerprint } from '../http/tls-files.ts';
import { Metrics, metricsSettings } from '../metrics/index.ts';
import { errorText } from '../util/errors.ts';
import type { Logger } from '../util/log.ts';
import { buildApp } from './app.ts';
import { resolveTokenTable, type TokenTable } from './auth.ts';
import { advertiseWeb } from './bonjour.ts';
import { type BoundListener, bindListener, closeListener, parseListen, type ServerTls } from './listen.ts';
import type { McpMountFactory } from './mcp-port.ts';
import { originPolicy } from './origin.ts';
import { tokenFilesFingerprint, tokenTableSummary } from './tokens.ts';

export { WebConfigError } from './auth.ts';

/**
 * The web API cannot come up now but may on a later attempt (spec 10 §3.1, §3.6): its TLS files do
 * not load, or no listen address could be bound. Nothing is left running; the daemon retries on
 * each housekeeping pass and SIGHUP. The message is the whole log line.
 */
export class WebRetryError extends Error {}

/** The warning of spec 10 §3.4 when rotated files do not load: the running listener is kept. */
export const notYetLoadable = (e: unknown): string =>
  `web: new TLS material is not yet loadable (a partial/half-written rotation, or a config edit racing one?); keeping the running listener and retrying next reload: ${errorText(e)}`;

/** Whether any listen entry is https://, so the TLS files must load before anything binds. */
export const servesHttps = (web: WebSection): boolean => web.listen.some((l) => l.startsWith('https://'));

/** The start's one TLS context, or null when nothing is https. Throws what `loadTlsFiles` throws. */
export function loadWebTls(web: WebSection): ServerTls | null {
  if (!servesHttps(web)) return null;
  return { options: loadTlsFiles(web.tls ?? {}), mutual: Boolean(web.tls?.clientCa) };
}

export interface WebServer {
  /** The bound addresses (`http://127.0.0.1:8080`, `unix:///run/cronstable.sock`, ...). */
  urls: string[];
  stop(): Promise<void>;
  /**
   * Re-reads the token sources and swaps the table in place when it resolves (spec 10 §2.6, done
   * better: nothing restarts, nothing drops); otherwise keeps the running table and says why.
   */
  refreshTokens(): void;
  /**
   * Swaps in rotated certificate files with `setSecureContext()` once they load (spec 10 §3.4, done
   * better: no restart, so no connection or log stream drops); a half-written rotation keeps the
   * running certificate and says so. A stat per file when nothing changed.
   */
  refreshTls(): void;
}

/**
 * Starts the web API. Throws WebConfigError (before binding anything) when the configuration
 * cannot be served safely, e.g. an authToken that resolves to an empty token.
 */
export async function startWebServer(
  ctx: WebContext,
  web: WebSection,
  log: Logger,
  opts: { mcp?: McpMountFactory } = {},
): Promise<WebServer> {
  let tls: ServerTls | null;
  try {
    tls = loadWebTls(web);
  } catch (e) {
    throw new WebRetryError(
      `web: TLS material is not loadable, so the web API is not starting (retrying on the next config reload): ${errorText(e)}`,
    );
  }
  let tlsPrint = tlsFingerprint(web.tls ?? {});
  const resolved = resolveTokenTable(web);
  const tokens: { current: TokenTable } | null = resolved ? { current: resolved } : null;
  if (resolved) log.info(tokenTableSummary(resolved));
  const origin = originPolicy(web.allowedOrigins, web.headers);
  if (!origin.enabled)
    log.warning(
      'web: web.headers sets Access-Control-Allow-Origin: *, so the cross-site request gate is disabled for the control API',
    );
  const settings = metricsSettings(web);
  let metrics: MetricsRegistry | null = null;
  let detachPrivate: (() => void) | null = null;
  if (settings.enabled) {
    if (ctx.metrics) {
      metrics = ctx.metrics;
      metrics.configure(web);
    } else {
      metrics = new Metrics({ version: ctx.version, durationBuckets: settings.durationBuckets });
      detachPrivate = metrics.attach(ctx);
    }
  }
  const status = new StatusView(ctx);
  const node = NodeSampler.fromConfig(web);
  const jobResources = new JobResourceSampler(ctx.scheduler);
  const deps: ApiDeps = {
    ctx,
    web,
    log,
    metrics,
    status,
    node,
    jobResources,
    bodies: apiBodies(ctx, () => deps),
  };
  const mcp = opts.mcp ? await opts.mcp(deps) : null;
  const app = buildApp(deps, { tokens, origin, mcp });
  const fetch = (req: Request, env: unknown) => app.fetch(req, env);

  const listeners: BoundListener[] = [];
  for (const text of web.listen) {
    const addr = parseListen(text);
    if ('error' in addr) {
      log.warning(`web: could not listen on ${text}: ${addr.error}`);
      continue;
    }
    const bound = await bindListener(fetch, addr, web, log, tls);
    if (bound) listeners.push(bound);
  }
  if (listeners.length === 0) {
    // A predecessor still draining may hold the port (spec 10 §3.6): discard this app and retry.
    status.close();
    detachPrivate?.();
    throw new WebRetryError(
      'web: no listen address could be bound, so the web API is not up; retrying on the next housekeeping pass',
    );
  }
  node.start();
  jobResources.start();
  const bonjour = advertiseWeb(web, listeners, ctx.version, log);

  let stopped: Promise<void> | null = null;
  let fingerprint = tokenFilesFingerprint(web);
  return {
    urls: listeners.map((l) => l.url),
    refreshTokens() {
      const now = tokenFilesFingerprint(web);
      if (tokens === null || now === fingerprint) return;
      try {
        const next = resolveTokenTable(web);
        if (next === null) return;
        tokens.current = next;
        fingerprint = now;
        log.info('web: web token files changed, the new token table is in effect');
      } catch (e) {
        log.warning(
          `web: a bearer token source is not resolvable (a half-written rotation, or a config edit racing one?); keeping the running listener and retrying next reload: ${errorText(e)}`,
        );
      }
    },
    refreshTls() {
      if (tls === null) return;
      const now = tlsFingerprint(web.tls ?? {});
      if (now === tlsPrint) return;
      let options: ServerTls['options'];
      try {
        options = loadTlsFiles(web.tls ?? {});
      } catch (e) {
        log.warning(notYetLoadable(e));
        return;
      }
      for (const l of listeners)
        if (l.tls) (l.server as unknown as import('node:https').Server).setSecureContext(options);
      tlsPrint = now;
      log.info('web: TLS certificate files changed, the new certificates are in effect for new connections');
    },
    stop() {
      stopped ??= (async () => {
        node.stop();
        jobResources.stop();
        status.close();
        deps.bodies.watch.close();
        detachPrivate?.();
        // The goodbye goes out while the listeners still answer, so no browser is sent to a closed port.
        await (await bonjour)?.stop();
        await Promise.all(listeners.map(closeListener));
      })();
      return stopped;
    },
  };
}
