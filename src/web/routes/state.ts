// The read-only state inspector (spec 06 §5.14), answered by ../api/state.ts (which the MCP
// `cron_inspect_state` tool calls too).
import type { Hono } from 'hono';
import type { ApiDeps } from '../../api/deps.ts';
import { stateArtifacts, stateDocuments, stateOverview, stateRecords } from '../../api/state.ts';
import { answer, json, limitParam, type WebEnv } from '../respond.ts';

export function stateRoutes(app: Hono<WebEnv>, d: ApiDeps): void {
  const { ctx } = d;
  app.get('/state', async () => json(await stateOverview(ctx)));
  app.get('/state/documents', async (c) => answer(await stateDocuments(ctx, c.req.query('ns'))));
  app.get('/state/records', async (c) =>
    answer(await stateRecords(ctx, c.req.query('stream'), limitParam(c, null, 100, 1, 500))),
  );
  app.get('/state/artifacts', async (c) => answer(await stateArtifacts(ctx, c.req.query('scope'))));
}
