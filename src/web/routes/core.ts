// /version, /status, /job-set-id, /cluster, /fleet, /node, /node/history (spec 06 §5.1-§5.9); the JSON
// payloads come from api/core.ts, shared with the MCP tools.
import type { Hono } from 'hono';
import { clusterBody, fleetBody, jobSetIdBody, nodeBody, nodeHistoryBody } from '../../api/core.ts';
import type { ApiDeps } from '../../api/deps.ts';
import { JSON_TYPE, json, TEXT_TYPE, text, type WebEnv } from '../respond.ts';

/** What `new Response()` accepts (the DOM `BodyInit`, which Node's types do not declare globally). */
type ResponseBody = ConstructorParameters<typeof Response>[0];

/** Whether an Accept-Encoding header admits gzip (and does not give it q=0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  for (const part of header.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

export function coreRoutes(app: Hono<WebEnv>, d: ApiDeps): void {
  const { ctx } = d;
  app.get('/version', () => text(ctx.version));

  app.get('/status', (c) => {
    const kind = c.req.header('accept') === 'application/json' ? 'json' : 'text';
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
    if (c.req.header('accept') === 'application/json') return json(jobSetIdBody(d));
    return text(ctx.jobSetId());
  });

  app.get('/cluster', () => json(clusterBody(d)));
  app.get('/fleet', () => json(fleetBody(d)));
  app.get('/node', () => json(nodeBody(d)));
  app.get('/node/history', () => json(nodeHistoryBody(d)));
}
