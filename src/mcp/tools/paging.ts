// The `page` signal of the paged MCP tools (spec 07 §4.1 row limits): `offset` defaults to 0 and a
// negative one counts as 0, `limit` is already clamped by the caller (ctx.rows), a page past the end
// is empty; `nextOffset` is where the next page starts, null at the end. Pure (its schema is in
// shared.schema.ts).
import type { z } from 'zod';
import type { PageSchema } from './shared.schema.ts';

export type Page = z.infer<typeof PageSchema>;

export function paginate<T>(
  items: readonly T[],
  offset: number | undefined,
  limit: number,
): { items: T[]; page: Page } {
  const from = Math.max(0, offset ?? 0);
  const slice = items.slice(from, from + limit);
  const end = from + slice.length;
  return {
    items: slice,
    page: {
      offset: from,
      limit,
      total: items.length,
      returned: slice.length,
      nextOffset: end < items.length ? end : null,
    },
  };
}
