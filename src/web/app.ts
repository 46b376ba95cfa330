// The Hono app (spec 06 §2): Host gate (without a token) -> Origin gate -> auth -> web.headers placement -> routes; unknown
// paths resolve after auth (401 before 404), a known path with the wrong method answers 405
// (Hono's method-not-allowed middleware, with the project's JSON error body). The generic reasons are
// spec 10 §4.9's.
import { Hono } from 'hono';
import { methodNotAllowed } from 'hono/method-not-allowed';
import type { ApiDeps } from '../api/deps.ts';
import { metricsSettings } from '../metrics/index.ts';
import { authMiddleware, type TokenTable } from './auth.ts';
import { customHeaders } from './headers.ts';
import { allowedHostNames, hostGate } from './hostgate.ts';
import type { McpMount } from './mcp-port.ts';
import { type OriginPolicy, originGate } from './origin.ts';
import { type Ctx, jsonError, type WebEnv } from './respond.ts';
import { calendarRoutes } from './routes/calendar.ts';
import { coreRoutes } from './routes/core.ts';
import { dagRoutes } from './routes/dags.ts';
import { dashboardRoute } from './routes/dashboard.ts';
import { jobRoutes } from './routes/jobs.ts';
import { metricsRoute } from './routes/metrics.ts';
import { openApiRoute } from './routes/openapi.ts';
import { overviewRoutes } from './routes/overview.ts';
import { pushRoutes } from './routes/push.ts';
import { scheduleRoutes } from './routes/schedule.ts';
import { slotRoutes } from './routes/slots.ts';
import { stateRoutes } from './routes/state.ts';
import { whoamiRoute } from './routes/whoami.ts';

export interface AppOptions {
  /** The live token table (swapped in place on rotation), or null when auth is off. */
  tokens: { current: TokenTable } | null;
  origin: OriginPolicy;
  /** The MCP endpoint when `mcp.enabled` (mounted by the daemon through the port), else null. */
  mcp?: McpMount | null;
}

export function buildApp(deps: ApiDeps, opts: AppOptions): Hono<WebEnv> {
  const app = new Hono<WebEnv>();
  const ui = deps.web.ui !== false;
  const metrics = metricsSettings(deps.web);
  const mcp = opts.mcp ?? null;

  // API answers are data for scripts, never something to sniff or cache.
  app.use('*', async (c, next) => {
    await next();
    if (!c.res.headers.has('x-content-type-options')) c.res.headers.set('x-content-type-options', 'nosniff');
    if (!c.res.headers.has('cache-control')) c.res.headers.set('cache-control', 'no-store');
  });
  // With an anonymous grant the token no longer guards reads against DNS rebinding: keep the Host gate.
  if (opts.tokens === null || opts.tokens.current.anonymous.size > 0)
    app.use('*', hostGate(allowedHostNames(deps.web.listen ?? [], deps.web.allowedHosts ?? [])));
  app.use('*', originGate(opts.origin));
  const publicPaths = new Set<string>();
  if (ui) publicPaths.add('/');
  if (metrics.enabled && metrics.public) publicPaths.add('/metrics');
  if (opts.tokens !== null) {
    const bypass = mcp ? (c: Ctx) => c.req.path === '/mcp' && mcp.preflightBypass(c) : undefined;
    app.use('*', authMiddleware({ table: opts.tokens, publicPaths, bypass }));
  }
  // Operator headers are never applied to /mcp (spec 07 §2.1).
  app.use('*', customHeaders(deps.web.headers, ['/mcp']));

  app.use(
    '*',
    methodNotAllowed({
      app,
      onMethodNotAllowed: (_c, methods) =>
        jsonError(405, '405: Method Not Allowed', { allow: [...methods].sort().join(', ') }),
    }),
  );

  if (mcp) {
    app.post('/mcp', (c) => mcp.post(c));
    app.options('/mcp', (c) => mcp.options(c));
    // GET/HEAD and any other method: an explicit 405 (Hono would answer 404).
    app.all('/mcp', (c) => mcp.notAllowed(c));
  }
  coreRoutes(app, deps);
  whoamiRoute(app, deps);
  jobRoutes(app, deps);
  overviewRoutes(app, deps, { auth: opts.tokens !== null });
  slotRoutes(app, deps);
  calendarRoutes(app, deps);
  scheduleRoutes(app, deps);
  dagRoutes(app, deps);
  stateRoutes(app, deps);
  pushRoutes(app, deps);
  metricsRoute(app, deps);
  if (ui) dashboardRoute(app, deps);
  openApiRoute(app, deps, { auth: opts.tokens !== null, publicPaths });

  app.notFound(() => jsonError(404, '404: Not Found'));
  app.onError((err, c) => {
    deps.log.error(`web: ${c.req.method} ${c.req.path} failed: ${err?.stack ?? err}`);
    return jsonError(500, 'internal error; the reason is in the cronstable log');
  });
  return app;
}
