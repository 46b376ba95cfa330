// GET /whoami (spec 10 §2.4): who the presented credential is and what it may do, so a client
// (the dashboard) can hide what it cannot use. Clients branch on `allScopes`.
import type { Hono } from 'hono';
import type { ApiDeps } from '../../api/deps.ts';
import { pairLinkBase } from '../../config/push.ts';
import { json, type WebEnv } from '../respond.ts';

/** Where a pairing link points until a `push:` section names a relay (spec 10 §6.5). */
export const DEFAULT_PAIR_LINK_BASE = 'https://relay.cronstable.com/pair';

const ALL: ('approve' | 'control' | 'view')[] = ['approve', 'control', 'view'];

/** The relay's pairing page once a `push:` section is applied (spec 10 §6.5). */
function linkBase(d: ApiDeps): string {
  const push = d.ctx.config().push;
  return push ? pairLinkBase(push.relayUrl) : DEFAULT_PAIR_LINK_BASE;
}

export function whoamiRoute(app: Hono<WebEnv>, d: ApiDeps): void {
  app.get('/whoami', (c) => {
    c.set('customHeaders', true);
    const caller = c.get('caller');
    if (caller === undefined)
      return json({
        authenticated: false,
        label: null,
        scopes: ALL,
        allScopes: true,
        pairLinkBase: linkBase(d),
      });
    const scopes = [...caller.scopes].sort();
    return json({
      authenticated: caller.label !== 'anonymous',
      label: caller.label,
      scopes,
      allScopes: ALL.every((s) => scopes.includes(s)),
      pairLinkBase: linkBase(d),
    });
  });
}
