// The schema of GET /whoami (spec 10 §2.4) and its RouteDoc: who the presented credential is and
// which scopes it holds. Loaded only by src/web/openapi.ts, never by a daemon serving the route.
import { z } from 'zod';
import type { RouteDoc } from './route-doc.ts';

export const ScopeSchema = z.enum(['approve', 'control', 'view']);

export const WhoamiSchema = z.object({
  authenticated: z.boolean(),
  label: z.string().nullable(),
  scopes: z.array(ScopeSchema),
  allScopes: z.boolean(),
  pairLinkBase: z.string(),
});
export type WhoamiBody = z.infer<typeof WhoamiSchema>;

export const docs: RouteDoc[] = [
  {
    method: 'get',
    path: '/whoami',
    summary:
      "The presented credential: its label (a token's, 'anonymous', or null without auth), its effective scopes and whether it holds them all",
    response: WhoamiSchema,
  },
];
