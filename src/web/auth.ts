// Bearer-token auth with scopes (spec 06 §3, spec 10 §2.2-§2.3): the exact public paths, the CORS
// preflight pass, the anonymous grant, the `.ics` query-token carve-out, a constant-time compare
// against every token, and the scope each route needs. The table sits in a holder so a token-file
// rotation swaps it in place: no listener restarts, no connection or log stream drops.
import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { type Ctx, jsonError, type WebEnv } from './respond.ts';
import { type Scope, secretDigest, type TokenTable } from './tokens.ts';

export {
  resolveAuthToken,
  resolveTokenTable,
  type Scope,
  type TokenTable,
  WebConfigError,
} from './tokens.ts';

/** Constant-time comparison on UTF-8 bytes (hashing removes the equal-length requirement). */
export function tokenMatches(presented: string, expected: Buffer): boolean {
  if (presented === '') return false;
  // A lone surrogate cannot be encoded faithfully: never a match.
  if (/\p{Cs}/u.test(presented)) return false;
  return timingSafeEqual(secretDigest(presented), expected);
}

/** Who a request is, as /whoami and the MCP tools see it. */
export interface Caller {
  /** The matched token's label, `anonymous`, or null when no token is configured. */
  label: string | null;
  scopes: ReadonlySet<Scope>;
}

export interface AuthOptions {
  /** The live table; replaced in place when token files rotate. */
  table: { current: TokenTable };
  /** Exact paths served without a token (`/` with the UI, `/metrics` when public). */
  publicPaths: ReadonlySet<string>;
  /** Requests that skip auth (the MCP preflight from an allow-listed origin, spec 07 §2.5). */
  bypass?: (c: Ctx) => boolean;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const DECISION = /^\/dags\/[^/]+\/runs\/[^/]+\/tasks\/[^/]+\/decision$/;

/** The scope a request needs: the method's default with two overrides by route (spec 10 §2.2). */
export function requiredScope(method: string, path: string): Scope {
  if (path === '/mcp') return 'control';
  if (method === 'POST' && DECISION.test(path)) return 'approve';
  return SAFE.has(method.toUpperCase()) ? 'view' : 'control';
}

/** Splits `Authorization` at the first space; the scheme is compared case-insensitively. */
function bearerOf(header: string | undefined): { bearer: boolean; token: string } {
  if (header === undefined) return { bearer: false, token: '' };
  const space = header.indexOf(' ');
  const scheme = space < 0 ? header : header.slice(0, space);
  return { bearer: scheme.toLowerCase() === 'bearer', token: space < 0 ? '' : header.slice(space + 1) };
}

const unauthorized = () =>
  jsonError(401, '401: Unauthorized', { 'www-authenticate': 'Bearer realm="cronstable"' });

export const anonymousRefusal = (scope: Scope) =>
  `anonymous access to this daemon grants only the 'view' scope; this endpoint requires '${scope}'; present a bearer token`;

export const scopeRefusal = (label: string, scope: Scope) =>
  `token '${label}' lacks the '${scope}' scope required for this endpoint`;

const isPush = (path: string) => path === '/push/devices' || path.startsWith('/push/devices/');

export function authMiddleware(opts: AuthOptions): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const path = c.req.path;
    if (opts.publicPaths.has(path) || opts.bypass?.(c)) return next();
    if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined)
      return next();
    const table = opts.table.current;
    const scope = requiredScope(c.req.method, path);
    const header = c.req.header('authorization');
    const query = c.req.query('token') ?? '';
    if (table.anonymous.size > 0 && (header === undefined || header === '') && query === '') {
      if (isPush(path))
        return jsonError(
          403,
          `the device registry is not served anonymously; present a bearer token with the '${scope}' scope`,
        );
      if (!table.anonymous.has(scope)) return jsonError(403, anonymousRefusal(scope));
      c.set('caller', { label: 'anonymous', scopes: table.anonymous });
      return next();
    }
    const { bearer, token } = bearerOf(header);
    let presented = bearer ? token : '';
    if (!bearer && path.endsWith('/calendar.ics')) presented = query;
    if (presented === '') return unauthorized();
    // Every token is compared, no early exit: the time taken says nothing about which one matched.
    let matched: (typeof table.tokens)[number] | null = null;
    for (const t of table.tokens) if (tokenMatches(presented, t.digest) && matched === null) matched = t;
    if (matched === null) return unauthorized();
    if (!matched.scopes.has(scope)) return jsonError(403, scopeRefusal(matched.label, scope));
    c.set('caller', { label: matched.label, scopes: matched.scopes });
    return next();
  };
}
