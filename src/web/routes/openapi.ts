// GET /openapi.json: the OpenAPI document of the routes this app registers (src/web/openapi.ts),
// built on first request, when every route is in place. Behind the API's auth like any other route.
// The document generator (and with it zod and every payload schema) is loaded by that first request,
// so a daemon nobody asks for the document never loads them (issue 21: no cost without MCP).
import type { Hono } from 'hono';
import type { ApiDeps } from '../../api/deps.ts';
import { JSON_TYPE, text, type WebEnv } from '../respond.ts';

export function openApiRoute(
  app: Hono<WebEnv>,
  d: ApiDeps,
  opts: { auth: boolean; publicPaths: ReadonlySet<string> },
): void {
  let body: Promise<string> | null = null;
  const build = async (): Promise<string> => {
    const { openApiDocument, ROUTE_DOCS, registeredRoutes } = await import('../openapi.ts');
    const served = registeredRoutes(app);
    return JSON.stringify(openApiDocument(ROUTE_DOCS, { version: d.ctx.version, served, ...opts }));
  };
  app.get('/openapi.json', async () => {
    // A failed build is not cached: the next request tries again.
    body ??= build().catch((e: unknown) => {
      body = null;
      throw e;
    });
    return text(await body, 200, JSON_TYPE);
  });
}
