// GET /metrics (spec 06 §6.1): the daemon's registry, text or OpenMetrics by Accept.
import type { WebDeps } from '../deps.ts';
import type { Routes } from '../router.ts';

export function metricsRoute(r: Routes, d: WebDeps): void {
  const metrics = d.metrics;
  if (!metrics) return;
  r.get('/metrics', async (c) => {
    const { contentType, body } = await metrics.exposition(c.req.header('accept'));
    return new Response(body, { headers: { 'content-type': contentType } });
  });
}
