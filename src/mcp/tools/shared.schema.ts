// Result schemas several tools share (spec 07 §4.1): the `page` of the paged lists and the
// `{lines, cursor, truncated, skipped?}` part of both log tails. Loaded with the tools' other zod
// schemas (tests, the schema generator), never by a daemon serving them.
import { z } from 'zod';

export const PageSchema = z.object({
  offset: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  returned: z.number().int(),
  nextOffset: z.number().int().nullable(),
});

export const tailLineSchema = z.object({ stream: z.enum(['stdout', 'stderr']), line: z.string() });
export const tailPageShape = {
  lines: z.array(tailLineSchema),
  cursor: z.string(),
  truncated: z.boolean(),
  skipped: z.number().int().optional(),
};
