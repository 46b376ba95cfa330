// The `state` tool as written: its handler (src/mcp/handlers/state.ts) with its zod schemas
// (state.schema.ts).
import { stateHandlers } from '../handlers/state.ts';
import { type ToolDef, withSchemas } from '../tool.ts';
import { stateSchemas } from './state.schema.ts';

export { stateRefusal } from '../handlers/state.ts';

export const stateTools: ToolDef[] = withSchemas(stateHandlers, stateSchemas);
