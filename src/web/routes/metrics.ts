// GET /metrics (spec 06 §6.1): the daemon's registry, text or OpenMetrics by Accept.
import type { Hono } from 'hono';
import type { ApiDeps } from '../../api/deps.ts';
import type { WebEnv } from '../respond.ts';

export function metricsRoute(app: Hono<WebEnv>, d: ApiDeps): void {
  const metrics = d.metrics;
  if (!metrics) return;
  app.get('/metrics', async (c) => {
    const { contentType, body } = await metrics.exposition(c.req.header('accept'));
    return new Response(body, { headers: { 'content-type': contentType } });
  });
}
