// /jobs and the per-job routes (spec 06 §5.3-§5.7): list, runs, logs (SSE), resources, trends,
// and the start/cancel controls. The payloads come from api/jobs.ts, shared with the MCP tools.
import type { Hono } from 'hono';
import type { ApiDeps } from '../../api/deps.ts';
import {
  cancelJob,
  jobNotFoundText,
  jobResources,
  jobRow,
  jobRuns,
  jobTrends,
  RUNS_LIMIT,
  startJob,
} from '../../api/jobs.ts';
import { jobLogSource } from '../../api/logsource.ts';
import { pauseJob, resumeJob } from '../../api/pause.ts';
import type { ApiResult } from '../../api/types.ts';
import { serveJson } from '../conditional.ts';
import { type Ctx, errorWithHeaders, json, jsonError, limitParam, param, type WebEnv } from '../respond.ts';
import { sseResponse } from '../sse.ts';

export const jobNotFound = (name: string) => jsonError(404, jobNotFoundText(name));

/** A JSON answer; a 409 (a control refused) still carries `web.headers`, a 404 does not. */
function answer<T>(c: Ctx, r: ApiResult<T>, body: (value: T) => Response): Response {
  if (r.ok) return body(r.body);
  return r.status === 409 ? errorWithHeaders(c, r.status, r.error) : jsonError(r.status, r.error);
}

export function jobRoutes(app: Hono<WebEnv>, d: ApiDeps): void {
  const { ctx } = d;

  app.get('/jobs', (c) => serveJson(c, d.bodies.jobs.get()));

  app.get('/jobs/:name', (c) => answer(c, jobRow(d, param(c, 'name')), json));

  app.get('/jobs/:name/runs', (c) =>
    answer(c, jobRuns(d, param(c, 'name'), limitParam(c, null, RUNS_LIMIT, 1, RUNS_LIMIT)), json),
  );

  app.get('/jobs/:name/logs', (c) => {
    const name = param(c, 'name');
    if (!ctx.scheduler.job(name)) return jobNotFound(name);
    return sseResponse(jobLogSource(ctx, name));
  });

  app.get('/jobs/:name/resources', (c) =>
    answer(c, jobResources(d, param(c, 'name'), limitParam(c, 'runs', 20, 0, 50)), json),
  );

  app.get('/jobs/:name/trends', (c) => answer(c, jobTrends(d, param(c, 'name')), json));

  // Start and cancel acknowledge in JSON (spec 10 §4.1); `outcome` stays for the MCP tool.
  app.post('/jobs/:name/start', async (c) =>
    answer(c, await startJob(d, param(c, 'name')), (r) => json({ started: r.started })),
  );

  app.post('/jobs/:name/cancel', (c) => answer(c, cancelJob(d, param(c, 'name')), json));

  app.post('/jobs/:name/pause', async (c) =>
    answer(c, pauseJob(d, param(c, 'name'), { text: await c.req.text() }), json),
  );

  app.post('/jobs/:name/resume', async (c) =>
    answer(c, resumeJob(d, param(c, 'name'), { text: await c.req.text() }), json),
  );
}
