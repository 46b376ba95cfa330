// GET /openapi.json: the OpenAPI document of the routes this app registers (src/web/openapi.ts),
// built on first request, when every route is in place. Behind the API's auth like any other route.
import type { Hono } from 'hono';
import type { WebDeps } from '../deps.ts';
import { openApiDocument, ROUTE_DOCS, registeredRoutes } from '../openapi.ts';
import { JSON_TYPE, text, type WebEnv } from '../respond.ts';

export function openApiRoute(
  app: Hono<WebEnv>,
  d: WebDeps,
  opts: { auth: boolean; publicPaths: ReadonlySet<string> },
): void {
  let body: string | null = null;
  app.get('/openapi.json', () => {
    if (body === null) {
      const served = registeredRoutes(app);
      body = JSON.stringify(openApiDocument(ROUTE_DOCS, { version: d.ctx.version, served, ...opts }));
    }
    return text(body, 200, JSON_TYPE);
  });
}
