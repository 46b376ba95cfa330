// DAG routes (spec 04 §9, spec 06 §5.13), answered by ../api/dags.ts (which the MCP DAG tools call
// too). Until the DAG engine plugs in `ctx.dags`, `GET /dags` answers [] and every route naming a DAG
// answers 404 (spec 10 §4.9's texts).
import type { Hono } from 'hono';
import {
  dagBackfill,
  dagDecide,
  dagList,
  dagRun,
  dagRuns,
  dagTaskOutput,
  dagTrigger,
  dagXcom,
  unknownDag,
} from '../../api/dags.ts';
import type { ApiDeps } from '../../api/deps.ts';
import { jsonBody } from '../../api/shared-body.ts';
import { jsonDepth, MAX_JSON_DEPTH } from '../../util/jsondepth.ts';
import { serveJson } from '../conditional.ts';
import { answer, type Ctx, jsonError, limitParam, param, type WebEnv } from '../respond.ts';
import { sseResponse } from '../sse.ts';

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

export function dagRoutes(app: Hono<WebEnv>, d: ApiDeps): void {
  const { ctx } = d;

  app.get('/dags', async (c) => serveJson(c, jsonBody(await dagList(ctx))));

  app.get('/dags/:name/runs', async (c) =>
    answer(await dagRuns(ctx, param(c, 'name'), limitParam(c, null, 50, 1, 500))),
  );

  app.get('/dags/:name/runs/:runKey', async (c) =>
    answer(await dagRun(ctx, param(c, 'name'), param(c, 'runKey'))),
  );

  app.get('/dags/:name/runs/:runKey/xcom', async (c) =>
    answer(await dagXcom(ctx, param(c, 'name'), param(c, 'runKey'))),
  );

  app.get('/dags/:name/runs/:runKey/tasks/:taskkey/logs', (c) => {
    const name = param(c, 'name');
    const out = dagTaskOutput(ctx, name, param(c, 'runKey'), param(c, 'taskkey'));
    if (out === null) return answer(unknownDag(name));
    if (out === 'idle') return sseResponse({ replay: [], empty: true });
    return sseResponse({
      replay: out.lines,
      follow: (onLine, onEnd) => out.follow((e) => (e === 'end' ? onEnd() : onLine(e))),
    });
  });

  app.post('/dags/:name/trigger', async (c) => answer(await dagTrigger(ctx, param(c, 'name'))));

  app.post('/dags/:name/backfill', async (c) => {
    const name = param(c, 'name');
    if (!ctx.dags) return answer(unknownDag(name));
    const body = await objectBody(c);
    if (body instanceof Response) return body;
    return answer(await dagBackfill(ctx, name, body));
  });

  app.post('/dags/:name/runs/:runKey/tasks/:taskkey/decision', async (c) => {
    const name = param(c, 'name');
    if (!ctx.dags) return answer(unknownDag(name));
    const body = await objectBody(c);
    if (body instanceof Response) return jsonError(400, "decision must be 'approve' or 'reject'");
    return answer(await dagDecide(ctx, name, param(c, 'runKey'), param(c, 'taskkey'), body));
  });
}
