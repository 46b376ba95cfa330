// The argument and result schemas of the pause tools (spec 10 §1.6); the handlers are in
// src/mcp/handlers/pause.ts. `durationSeconds`, `until` and `note` are left untyped in the advertised
// schema on purpose: the spec checks them after the confirm rule, in the handler, with its own texts
// (a typed schema would refuse them first, in other words).
import { z } from 'zod';
import type { SchemaTable } from '../tool.ts';
import { confirmArg, jobNameArg } from './args.ts';

const durationArg = z
  .unknown()
  .optional()
  .describe('integer seconds, 1 to 2592000 (default 3600); an integral string such as "120" is accepted');
const untilArg = z
  .unknown()
  .optional()
  .describe(
    'ISO-8601 instant the pause ends (no offset = UTC), at most 30 days away; excludes durationSeconds',
  );
const noteArg = z.unknown().optional().describe('string, at most 500 characters: why the job is paused');

export const pauseSchemas = {
  cron_pause_job: {
    input: z.strictObject({
      name: jobNameArg,
      durationSeconds: durationArg,
      until: untilArg,
      note: noteArg,
      confirm: confirmArg,
    }),
    output: z.object({ paused: z.string(), until: z.string() }),
  },
  cron_resume_job: {
    input: z.strictObject({ name: jobNameArg, confirm: confirmArg }),
    output: z.object({ resumed: z.string() }),
  },
} satisfies SchemaTable;

export type PauseSchemas = typeof pauseSchemas;
