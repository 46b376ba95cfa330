// /jobs and the per-job routes (spec 06 §5.3-§5.7): list, runs, logs (SSE), resources, trends,
// and the start/cancel controls.
import type { Hono } from 'hono';
import { monitorSettings } from '../../exec/procstat.ts';
import type { WebDeps } from '../deps.ts';
import { resourceStats } from '../jobresources.ts';
import { jobsList, runObject, runStats, trends } from '../jobview.ts';
import { errorWithHeaders, intParam, json, jsonError, param, type WebEnv } from '../respond.ts';
import { jobLogSource, sseResponse } from '../sse.ts';

export const jobNotFound = (name: string) => jsonError(404, `job '${name}' not found`);

export function jobRoutes(app: Hono<WebEnv>, d: WebDeps): void {
  const { ctx } = d;

  app.get('/jobs', () => json(jobsList(ctx)));

  app.get('/jobs/:name/runs', (c) => {
    const name = param(c, 'name');
    const history = ctx.scheduler.history(name);
    if (!history) return jobNotFound(name);
    const runs = history.recentRuns().slice(-50);
    // Runs the resource sampler watched carry their CPU time and peak RSS (spec 06 §5.5).
    const sampled = d.jobResources.summariesOf(name);
    if (sampled.size === 0) return json({ name, runs: runs.map(runObject), stats: runStats(runs) });
    const usage = runs.map((r) => sampled.get(r.id) ?? null);
    return json({
      name,
      runs: runs.map((r, i) => ({ ...runObject(r), resources: usage[i] })),
      stats: { ...runStats(runs), ...resourceStats(usage) },
    });
  });

  app.get('/jobs/:name/logs', (c) => {
    const name = param(c, 'name');
    if (!ctx.scheduler.job(name)) return jobNotFound(name);
    return sseResponse(jobLogSource(ctx, name));
  });

  app.get('/jobs/:name/resources', (c) => {
    const name = param(c, 'name');
    const job = ctx.scheduler.job(name);
    if (!job) return jobNotFound(name);
    const m = monitorSettings(job.monitorResources);
    const n = intParam(c.req.query('runs'), 20, 0, 50);
    return json({
      name,
      monitored: m.enabled,
      interval: m.interval,
      live: d.jobResources.liveOf(name),
      // Each sampled run joins its run record (outcome, exit code, times) when the history still holds it.
      runs: d.jobResources.runsOf(name, n).map((r) => {
        const rec = ctx.scheduler
          .history(name)
          ?.recentRuns()
          .find((x) => x.id === r.run_id);
        return rec ? { ...runObject(rec), pid: r.pid, resources: r.resources } : r;
      }),
    });
  });

  app.get('/jobs/:name/trends', (c) => {
    const name = param(c, 'name');
    if (!ctx.scheduler.job(name)) return jobNotFound(name);
    return json(trends(ctx, name));
  });

  app.post('/jobs/:name/start', async (c) => {
    const name = param(c, 'name');
    const result = await ctx.scheduler.startJob(name);
    d.status.invalidate();
    if (result === 'unknown') return jobNotFound(name);
    if (result === 'disabled') return errorWithHeaders(c, 409, `job '${name}' is disabled`);
    return c.body(null, 200);
  });

  app.post('/jobs/:name/cancel', (c) => {
    const name = param(c, 'name');
    if (!ctx.scheduler.job(name)) return jobNotFound(name);
    if (ctx.scheduler.running(name).length === 0)
      return errorWithHeaders(c, 409, `job '${name}' is not running`);
    // Answer once the cancellation is under way; terminate -> killTimeout -> kill runs on.
    ctx.scheduler.cancelJob(name).then(
      () => d.status.invalidate(),
      (e: unknown) => d.log.error(`web: cancelling job ${name} failed: ${(e as Error)?.message ?? e}`),
    );
    d.status.invalidate();
    return c.body(null, 200);
  });
}
