// Every MCP tool as the daemon serves it: the handlers in catalogue order, each joined with the
// JSON Schemas of schemas.json (generated from the tools' zod schemas by scripts/mcp-schemas.ts). No
// module this reaches loads zod at run time, so the MCP server builds no schema object at all.
import { inCatalogueOrder } from '../catalogue.ts';
import type { ServedTool } from '../tool.ts';
import { dagHandlers } from './dags.ts';
import { jobHandlers } from './jobs.ts';
import { nodeHandlers } from './node.ts';
import { pauseHandlers } from './pause.ts';
import { scheduleHandlers } from './schedule.ts';
import schemas from './schemas.json' with { type: 'json' };
import { stateHandlers } from './state.ts';

type Schemas = Pick<ServedTool, 'inputSchema' | 'outputSchema'>;

export const ALL_HANDLERS = inCatalogueOrder([
  ...jobHandlers,
  ...pauseHandlers,
  ...nodeHandlers,
  ...scheduleHandlers,
  ...dagHandlers,
  ...stateHandlers,
]);

export function servedTools(): ServedTool[] {
  const table = schemas as Record<string, Schemas | undefined>;
  return ALL_HANDLERS.map((h) => {
    const s = table[h.name];
    if (!s) throw new Error(`no schemas for MCP tool ${h.name}: run scripts/mcp-schemas.ts`);
    return { ...h, ...s };
  });
}
