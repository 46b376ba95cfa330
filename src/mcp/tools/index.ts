// Every MCP tool as written (handlers with their zod schemas), in catalogue order: what the tests
// and the schema generator (scripts/mcp-schemas.ts) read. The daemon serves the same handlers with
// the generated JSON Schemas instead (src/mcp/handlers/index.ts).
import { inCatalogueOrder } from '../catalogue.ts';
import type { ToolDef } from '../tool.ts';
import { dagTools } from './dags.ts';
import { jobTools } from './jobs.ts';
import { nodeTools } from './node.ts';
import { pauseTools } from './pause.ts';
import { scheduleTools } from './schedule.ts';
import { stateTools } from './state.ts';

export { CATALOGUE, inCatalogueOrder } from '../catalogue.ts';

export const ALL_TOOLS: readonly ToolDef[] = inCatalogueOrder([
  ...jobTools,
  ...pauseTools,
  ...nodeTools,
  ...scheduleTools,
  ...dagTools,
  ...stateTools,
]);
