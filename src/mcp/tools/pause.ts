// The pause tools as written: their handlers (src/mcp/handlers/pause.ts) with their zod schemas.
import { pauseHandlers } from '../handlers/pause.ts';
import { type ToolDef, withSchemas } from '../tool.ts';
import { pauseSchemas } from './pause.schema.ts';

export const pauseTools: ToolDef[] = withSchemas(pauseHandlers, pauseSchemas);
