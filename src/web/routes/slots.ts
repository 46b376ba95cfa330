// GET /jobs/{name}/slots and /slots/unaccounted (issue 15 part 2), answered by ../api/slots.ts.
import type { Hono } from 'hono';
import type { ApiDeps } from '../../api/deps.ts';
import { jobSlotsView, unaccountedView } from '../../api/slots.ts';
import { answer, param, type WebEnv } from '../respond.ts';

export function slotRoutes(app: Hono<WebEnv>, d: ApiDeps): void {
  const { ctx } = d;
  app.get('/slots/unaccounted', async () => answer(await unaccountedView(ctx)));
  app.get('/jobs/:name/slots', async (c) =>
    answer(await jobSlotsView(ctx, param(c, 'name'), c.req.query('from'), c.req.query('to'))),
  );
}
