// The `dags` tools as written: their handlers (src/mcp/handlers/dags.ts) with their zod schemas
// (dags.schema.ts), in catalogue order (spec 07 §4.2).
import { dagHandlers } from '../handlers/dags.ts';
import { type ToolDef, withSchemas } from '../tool.ts';
import { dagSchemas } from './dags.schema.ts';

export const dagTools: ToolDef[] = withSchemas(dagHandlers, dagSchemas);
