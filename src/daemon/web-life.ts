// The web API's life inside the daemon (spec 06 §1.4, spec 10 §3.4, §3.6): start it when a `web:`
// section is present, restart it when that section (or `mcp:`) changes, keep it when a restart's
// new TLS files do not load yet, and retry a start whose TLS files or listen addresses failed on
// each housekeeping pass and SIGHUP. Token and certificate rotation swap in place, never restart.
import type { WebContext } from '../api/context.ts';
import type { McpSection, WebSection } from '../config/file-schema.ts';
import type { Metrics } from '../metrics/index.ts';
import { errorText } from '../util/errors.ts';
import type { Logger } from '../util/log.ts';
import type { WebServer } from '../web/server.ts';

export interface WebLifeDeps {
  log: Logger;
  context: () => WebContext;
  /** The process's one metrics registry, made on first use (counters survive restarts). */
  metrics: () => Promise<Metrics>;
  /** How often a web API that is down for a retryable reason is tried again, ms (default 60 s). */
  retryMs?: number;
}

/** The reference's housekeeping pass, which is when a failed start is retried (spec 10 §3.6). */
export const WEB_RETRY_MS = 60_000;

export class WebLife {
  private server: WebServer | null = null;
  /** The section the running server (or the pending retry) was started for. */
  private key: string | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private wanted: { web: WebSection | null; mcp: McpSection | null } = { web: null, mcp: null };
  private busy: Promise<void> = Promise.resolve();

  constructor(private readonly deps: WebLifeDeps) {}

  /** Applies a (re)loaded configuration; serialised, so a retry never races a reload. */
  apply(web: WebSection | null, mcp: McpSection | null): Promise<void> {
    this.wanted = { web, mcp };
    this.busy = this.busy.then(() => this.converge());
    return this.busy;
  }

  /** The cheap part of a housekeeping pass: rotated token or certificate files swap in place. */
  refresh(): void {
    this.server?.refreshTokens();
    this.server?.refreshTls();
  }

  async stop(): Promise<void> {
    this.clearRetry();
    await this.busy;
    const s = this.server;
    this.server = null;
    await s?.stop();
  }

  private async converge(): Promise<void> {
    const { web, mcp } = this.wanted;
    const key = web ? JSON.stringify([web, mcp]) : null;
    if (key === this.key && (this.server || key === null)) {
      // Converged (a config edit may have undone the one a retry was waiting for).
      this.clearRetry();
      this.refresh();
      return;
    }
    const { log } = this.deps;
    const { loadWebTls, notYetLoadable, startWebServer, WebConfigError, WebRetryError } = await import(
      '../web/server.ts'
    );
    if (this.server) {
      // The gate of spec 10 §3.4 on every restart reason: new TLS files that do not load yet (a
      // rotation racing the config edit) keep the running listener until a later pass.
      if (web && web.listen.length > 0) {
        try {
          loadWebTls(web);
        } catch (e) {
          log.warning(notYetLoadable(e));
          this.scheduleRetry();
          return;
        }
      }
      const before = this.key ? (JSON.parse(this.key) as [unknown, unknown]) : null;
      const reason =
        before && JSON.stringify(before[0]) === JSON.stringify(web)
          ? 'mcp configuration changed'
          : 'configuration changed';
      log.info(`web: ${reason}, stopping http server`);
      await this.server.stop().catch((e) => log.warning(`web: stopping failed: ${errorText(e)}`));
      this.server = null;
    }
    this.clearRetry();
    this.key = key;
    if (!web || web.listen.length === 0) return;
    const metrics = await this.deps.metrics();
    metrics.configure(web);
    try {
      const { mountMcp } = await import('./mcp-load.ts');
      this.server = await startWebServer(this.deps.context(), web, log, { mcp: mountMcp });
    } catch (e) {
      if (e instanceof WebRetryError) {
        log.error(e.message);
        this.scheduleRetry();
        return;
      }
      if (!(e instanceof WebConfigError)) throw e;
      // A bad token source: the next reload tries again (spec 06 §1.4).
      this.key = null;
      log.error(`Error in the web configuration, so not starting the web API: ${e.message}`);
    }
  }

  private scheduleRetry(): void {
    if (this.retryTimer) return;
    this.retryTimer = setInterval(
      () => void this.apply(this.wanted.web, this.wanted.mcp),
      this.deps.retryMs ?? WEB_RETRY_MS,
    );
    this.retryTimer.unref();
  }

  private clearRetry(): void {
    if (this.retryTimer) clearInterval(this.retryTimer);
    this.retryTimer = null;
  }
}
