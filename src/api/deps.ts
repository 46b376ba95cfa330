// What every API query, route module and MCP tool gets: the daemon context, the web section and the server's samplers.
import type { WebSection } from '../config/file-schema.ts';
import type { Logger } from '../util/log.ts';
import type { MetricsRegistry, WebContext } from './context.ts';
import type { JobResourceSampler } from './jobresources.ts';
import type { NodeSampler } from './node.ts';
import type { ChangeWatch, SharedBody, SharedBodyCache } from './shared-body.ts';
import type { StatusView } from './status.ts';
import type { JobRow } from './wire/jobs.schema.ts';

export interface ApiDeps {
  ctx: WebContext;
  web: WebSection;
  log: Logger;
  /** Null when `metrics` is disabled (the route is not registered). */
  metrics: MetricsRegistry | null;
  status: StatusView;
  node: NodeSampler;
  /** CPU / RSS samples of running `monitorResources` jobs. */
  jobResources: JobResourceSampler;
  /** The shared `/jobs` and default `/activity` bodies (spec 10 §4.4, §4.10). */
  bodies: { watch: ChangeWatch; jobs: SharedBodyCache<JobsBody>; activity: SharedBodyCache };
}

/**
 * The `/jobs` body with the rows it was rendered from and where each row's JSON ends in its bytes
 * (a row starts one byte after the previous one's end, past the comma, or after the opening `[`).
 * Read by the tools; never changed.
 */
export type JobsBody = SharedBody & { rows: readonly JobRow[]; rowEnds: Uint32Array };

/** This node's display name: the cluster node name, else the host name. */
export function nodeName(ctx: WebContext): string {
  const c = ctx.cluster();
  return c.nodeName || ctx.hostname;
}
