// The job tools as written: their handlers (src/mcp/handlers/jobs.ts) with their zod schemas
// (jobs.schema.ts), in catalogue order (spec 07 §4.2).
import { jobHandlers } from '../handlers/jobs.ts';
import { type ToolDef, withSchemas } from '../tool.ts';
import { jobSchemas } from './jobs.schema.ts';

export const jobTools: ToolDef[] = withSchemas(jobHandlers, jobSchemas);
