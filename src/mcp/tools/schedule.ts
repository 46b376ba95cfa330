// The schedule tools as written: their handlers (src/mcp/handlers/schedule.ts) with their zod
// schemas (schedule.schema.ts), in catalogue order (spec 07 §4.2), then cron_job_slots.
import { scheduleHandlers } from '../handlers/schedule.ts';
import { type ToolDef, withSchemas } from '../tool.ts';
import { scheduleSchemas } from './schedule.schema.ts';

export const scheduleTools: ToolDef[] = withSchemas(scheduleHandlers, scheduleSchemas);
