// /version, /status, /job-set-id, /cluster, /fleet, /node, /node/history (spec 06 §5.1-§5.9).
import type { Hono } from 'hono';
import { nodeName, type WebDeps } from '../deps.ts';
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

export function coreRoutes(app: Hono<WebEnv>, d: WebDeps): void {
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
    const id = ctx.jobSetId();
    if (c.req.header('accept') === 'application/json')
      return json({ job_set_id: id, jobs: ctx.scheduler.jobNames().length });
    return text(id);
  });

  // Spec 05 §12.1: the running backend's view plus enabled, job_set_id and this node's load.
  app.get('/cluster', () => {
    const view = ctx.cluster();
    const report = view.enabled ? view.report : null;
    if (!report) return json({ enabled: false, peers: [] });
    return json({ enabled: true, ...report, job_set_id: ctx.jobSetId(), node_stats: d.node.read() });
  });

  // Spec 05 §11: the gossip mesh's fleet view.
  app.get('/fleet', () => json(ctx.cluster().fleet?.() ?? { enabled: false, nodes: [] }));

  app.get('/node', () => {
    const o = ctx.scheduler.overload();
    return json({
      node_name: nodeName(ctx),
      resources: d.node.read(),
      overload: {
        overloaded: o.overloaded,
        missed_fires: o.missedFires,
        last_missed_at: o.lastMissedAt === null ? null : new Date(o.lastMissedAt).toISOString(),
        waiting_launches: o.waitingLaunches,
        launch_lag_seconds: Math.round(o.launchLagMs) / 1000,
      },
    });
  });

  app.get('/node/history', () =>
    json({
      node_name: nodeName(ctx),
      enabled: d.node.enabled,
      interval: d.node.enabled ? d.node.interval : null,
      points: d.node.enabled ? d.node.points : [],
    }),
  );
}
