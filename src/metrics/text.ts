// The Prometheus text exposition as a string, for callers that are not the `/metrics` route (MCP
// `cron_query_metrics`).

import type { MetricsRegistry } from '../api/context.ts';
import type { ApiDeps } from '../api/deps.ts';
import { Metrics } from './index.ts';

/**
 * The Prometheus text exposition, rendered in-process whether or not `/metrics` is served (MCP
 * `cron_query_metrics`): the server's registry, else the daemon's, else a registry made for this
 * one rendering (its counters start at zero; gauges read the live state).
 */
export async function metricsText(d: ApiDeps): Promise<string> {
  const registry: MetricsRegistry | null = d.metrics ?? d.ctx.metrics ?? null;
  if (registry) return (await registry.exposition(undefined)).body;
  const temp = new Metrics({ version: d.ctx.version });
  const detach = temp.attach(d.ctx);
  try {
    return (await temp.exposition(undefined)).body;
  } finally {
    detach();
  }
}
