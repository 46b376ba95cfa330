// /version, /status, /job-set-id, /cluster, /fleet, /node, /node/history (spec 06 §5.1-§5.9); the JSON
// payloads come from api/core.ts, shared with the MCP tools.
import type { Hono } from 'hono';
import { clusterBody, fleetBody, jobSetIdBody, nodeBody, nodeHistoryBody } from '../../api/core.ts';
import type { ApiDeps } from '../../api/deps.ts';
import { jsonBody } from '../../api/shared-body.ts';
import { acceptsGzip, acceptsJson, serveJson } from '../conditional.ts';
import { JSON_TYPE, json, TEXT_TYPE, text, type WebEnv } from '../respond.ts';

/** What `new Response()` accepts (the DOM `BodyInit`, which Node's types do not declare globally). */
type ResponseBody = ConstructorParameters<typeof Response>[0];

export function coreRoutes(app: Hono<WebEnv>, d: ApiDeps): void {
  const { ctx } = d;
  app.get('/version', () => text(ctx.version));

  app.get('/status', (c) => {
    const kind = acceptsJson(c.req.header('accept')) ? 'json' : 'text';
    const headers: Record<string, string> = {
      'content-type': kind === 'json' ? JSON_TYPE : TEXT_TYPE,
      vary: 'accept-encoding',
      // The body's shape is fixed (one entry per job); the node's overload travels beside it.
      'x-cronstable-overloaded': ctx.scheduler.overload().overloaded ? '1' : '0',
    };
    if (acceptsGzip(c.req.header('accept-encoding'))) {
      headers['content-encoding'] = 'gzip';
      return new Response(d.status.gzip(kind) as ResponseBody, { headers });
    }
    return new Response(d.status.body(kind) as ResponseBody, { headers });
  });

  app.get('/job-set-id', (c) => {
    if (acceptsJson(c.req.header('accept'))) return json(jobSetIdBody(d));
    return text(ctx.jobSetId());
  });

  // No tag on /cluster: its live CPU and memory would change it on every request.
  app.get('/cluster', (c) => serveJson(c, { ...jsonBody(clusterBody(d)), tag: null }));
  app.get('/fleet', (c) => serveJson(c, jsonBody(fleetBody(d))));
  app.get('/node', () => json(nodeBody(d)));
  app.get('/node/history', () => json(nodeHistoryBody(d)));
}
