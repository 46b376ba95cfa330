// GET /whoami (spec 10 §2.4): who the presented credential is and what it may do, so a client
// (the dashboard) can hide what it cannot use. Clients branch on `allScopes`.
import type { Hono } from 'hono';
import { json, type WebEnv } from '../respond.ts';

/** Where a pairing link points until a `push:` section names a relay (spec 10 §6.5). */
export const DEFAULT_PAIR_LINK_BASE = 'https://relay.cronstable.com/pair';

const ALL: ('approve' | 'control' | 'view')[] = ['approve', 'control', 'view'];

export function whoamiRoute(app: Hono<WebEnv>): void {
  app.get('/whoami', (c) => {
    c.set('customHeaders', true);
    const caller = c.get('caller');
    if (caller === undefined)
      return json({
        authenticated: false,
        label: null,
        scopes: ALL,
        allScopes: true,
        pairLinkBase: DEFAULT_PAIR_LINK_BASE,
      });
    const scopes = [...caller.scopes].sort();
    return json({
      authenticated: caller.label !== 'anonymous',
      label: caller.label,
      scopes,
      allScopes: ALL.every((s) => scopes.includes(s)),
      pairLinkBase: DEFAULT_PAIR_LINK_BASE,
    });
  });
}
