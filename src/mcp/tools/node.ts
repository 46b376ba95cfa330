// The cluster and node tools as written: their handlers (src/mcp/handlers/node.ts) with their zod
// schemas (node.schema.ts), in catalogue order (spec 07 §4.2), then the tools beyond the reference.
import { nodeHandlers } from '../handlers/node.ts';
import { type ToolDef, withSchemas } from '../tool.ts';
import { nodeSchemas } from './node.schema.ts';

export const nodeTools: ToolDef[] = withSchemas(nodeHandlers, nodeSchemas);
