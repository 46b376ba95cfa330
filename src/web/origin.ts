// Cross-site request gate (spec 06 §4): mutating requests from a foreign browser Origin are refused,
// whatever the auth setting, unless the origin is allow-listed.
import type { MiddlewareHandler } from 'hono';
import { jsonError, type WebEnv } from './respond.ts';

export const ORIGIN_REFUSED =
  'Origin not allowed: cross-site requests to the cronstable control API are refused; add the origin to web.allowedOrigins if it is trusted';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface OriginPolicy {
  /** false when `web.headers` carries `Access-Control-Allow-Origin: *` */
  enabled: boolean;
  allowed: ReadonlySet<string>;
}

/** The gate's settings from `allowedOrigins` and the ACAO escape hatch in `web.headers`. */
export function originPolicy(
  allowedOrigins: readonly string[] | undefined,
  headers: Record<string, string> | null | undefined,
): OriginPolicy {
  const allowed = new Set(allowedOrigins ?? []);
  let enabled = true;
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (k.toLowerCase() !== 'access-control-allow-origin') continue;
    if (v.trim() === '*') enabled = false;
    else allowed.add(v.trim());
  }
  return { enabled, allowed };
}

/** `hostname:port` of a Host header; a missing port is the Origin scheme's default. */
function authority(hostPort: string, defaultPort: string): string | null {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/@\s]+)(?::(\d{1,5}))?$/.exec(hostPort.trim());
  if (!m) return null;
  const port = m[2] === undefined ? defaultPort : String(Number(m[2]));
  return `${m[1]!.toLowerCase()}:${port}`;
}

export function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined || host === '') return false;
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false;
  }
  if (o.protocol !== 'http:' && o.protocol !== 'https:') return false;
  const def = o.protocol === 'https:' ? '443' : '80';
  // URL drops a port equal to the scheme's default, so `o.port || def` is the Origin's real port.
  const want = `${o.hostname.toLowerCase()}:${o.port || def}`;
  return authority(host, def) === want;
}

export function originGate(policy: OriginPolicy): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    if (!policy.enabled || SAFE.has(c.req.method) || c.req.path === '/mcp') return next();
    const origin = c.req.header('origin');
    if (origin === undefined) return next();
    if (policy.allowed.has(origin) || sameOrigin(origin, c.req.header('host'))) return next();
    return jsonError(403, ORIGIN_REFUSED);
  };
}
