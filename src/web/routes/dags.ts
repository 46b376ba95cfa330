// DAG routes (spec 04 §9, spec 06 §5.13). Until the DAG engine plugs in `ctx.dags`, `GET /dags`
// answers [] and every route naming a DAG answers 404 `unknown dag '<name>'`.
import type { Hono } from 'hono';
import { jsonDepth, MAX_JSON_DEPTH } from '../../util/jsondepth.ts';
import type { DagAnswer } from '../context.ts';
import type { WebDeps } from '../deps.ts';
import { type Ctx, intParam, json, jsonError, param, type WebEnv } from '../respond.ts';
import { sseResponse } from '../sse.ts';

const unknownDag = (name: string) => jsonError(404, `unknown dag '${name}'`);

function reply(a: DagAnswer): Response {
  return a.ok ? json(a.body) : jsonError(a.status, a.error);
}

/** A JSON-object request body, or the 400 answer (spec 04 §9). */
async function objectBody(c: Ctx): Promise<Record<string, unknown> | Response> {
  const raw = await c.req.text();
  if (jsonDepth(raw, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    return jsonError(400, `request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return jsonError(400, 'request body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return jsonError(400, 'request body must be a JSON object');
  return value as Record<string, unknown>;
}

export function dagRoutes(app: Hono<WebEnv>, d: WebDeps): void {
  const { ctx } = d;

  app.get('/dags', async () => json(ctx.dags ? await ctx.dags.list() : []));

  app.get('/dags/:name/runs', async (c) => {
    const name = param(c, 'name');
    if (!ctx.dags) return unknownDag(name);
    return reply(await ctx.dags.runs(name, intParam(c.req.query('limit'), 50, 1, 500)));
  });

  app.get('/dags/:name/runs/:runKey', async (c) => {
    const name = param(c, 'name');
    if (!ctx.dags) return unknownDag(name);
    return reply(await ctx.dags.run(name, param(c, 'runKey')));
  });

  app.get('/dags/:name/runs/:runKey/xcom', async (c) => {
    const name = param(c, 'name');
    if (!ctx.dags) return unknownDag(name);
    return reply(await ctx.dags.xcom(name, param(c, 'runKey')));
  });

  app.get('/dags/:name/runs/:runKey/tasks/:taskkey/logs', (c) => {
    const name = param(c, 'name');
    const out = ctx.dags?.taskOutput?.(name, param(c, 'runKey'), param(c, 'taskkey')) ?? null;
    if (!ctx.dags || out === null) return unknownDag(name);
    if (out === 'idle') return sseResponse({ replay: [], empty: true });
    return sseResponse({
      replay: out.lines,
      follow: (onLine, onEnd) => out.follow((e) => (e === 'end' ? onEnd() : onLine(e))),
    });
  });

  app.post('/dags/:name/trigger', async (c) => {
    const name = param(c, 'name');
    if (!ctx.dags) return unknownDag(name);
    return reply(await ctx.dags.trigger(name));
  });

  app.post('/dags/:name/backfill', async (c) => {
    const name = param(c, 'name');
    if (!ctx.dags) return unknownDag(name);
    const body = await objectBody(c);
    if (body instanceof Response) return body;
    return reply(await ctx.dags.backfill(name, body));
  });

  app.post('/dags/:name/runs/:runKey/tasks/:taskkey/decision', async (c) => {
    const name = param(c, 'name');
    if (!ctx.dags) return unknownDag(name);
    const body = await objectBody(c);
    if (body instanceof Response) return jsonError(400, "decision must be 'approve' or 'reject'");
    return reply(await ctx.dags.decide(name, param(c, 'runKey'), param(c, 'taskkey'), body));
  });
}
