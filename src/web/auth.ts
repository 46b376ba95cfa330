// Bearer-token auth (spec 06 §3): token resolution with fail-closed start (§1.3), the exact public
// paths, the `.ics` query-token carve-out, and a constant-time compare.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { MiddlewareHandler } from 'hono';
import type { WebSection } from '../config/file-schema.ts';
import { CronstableError, errorText } from '../util/errors.ts';
import { type Ctx, jsonError, type WebEnv } from './respond.ts';

/** A web configuration problem: the daemon logs it and keeps running without the web API. */
export class WebConfigError extends CronstableError {
  constructor(message: string) {
    super('web-config', message);
    this.name = 'WebConfigError';
  }
}

const nonEmpty = (s: string | null | undefined): s is string => typeof s === 'string' && s !== '';

/**
 * The configured token, or null when auth is off. Precedence value -> fromFile -> fromEnvVar; a
 * configured `authToken` that resolves to nothing is an error (the web API must not start open).
 */
export function resolveAuthToken(web: WebSection, env: NodeJS.ProcessEnv = process.env): string | null {
  const src = web.authToken;
  if (src === null || src === undefined) return null;
  let token = '';
  if (nonEmpty(src.value)) token = String(src.value);
  else if (nonEmpty(src.fromFile)) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(src.fromFile);
    } catch (e) {
      throw new WebConfigError(`web.authToken.fromFile could not be read: ${errorText(e)}`);
    }
    try {
      token = new TextDecoder('utf-8', { fatal: true }).decode(bytes).trim();
    } catch {
      throw new WebConfigError(
        `web.authToken.fromFile could not be read: ${src.fromFile} is not valid UTF-8`,
      );
    }
  } else if (nonEmpty(src.fromEnvVar)) token = env[src.fromEnvVar] ?? '';
  if (token === '') {
    const where = nonEmpty(src.fromFile)
      ? `the file ${src.fromFile} is empty`
      : nonEmpty(src.fromEnvVar)
        ? `the environment variable ${src.fromEnvVar} is unset or empty`
        : 'no value, fromFile or fromEnvVar is set';
    throw new WebConfigError(
      `web.authToken is configured but resolved to an empty token (${where}); refusing to start the web API without authentication`,
    );
  }
  return token;
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Constant-time comparison on UTF-8 bytes (hashing removes the equal-length requirement). */
export function tokenMatches(presented: string, expected: Buffer): boolean {
  if (presented === '') return false;
  let d: Buffer;
  try {
    // A lone surrogate cannot be encoded faithfully: never a match.
    if (/\p{Cs}/u.test(presented)) return false;
    d = digest(presented);
  } catch {
    return false;
  }
  return timingSafeEqual(d, expected);
}

export interface AuthOptions {
  token: string;
  /** Exact paths served without a token (`/` with the UI, `/metrics` when public). */
  publicPaths: ReadonlySet<string>;
  /** Requests that skip auth (the MCP preflight from an allow-listed origin, spec 07 §2.5). */
  bypass?: (c: Ctx) => boolean;
}

/** Splits `Authorization` at the first space; the scheme is compared case-insensitively. */
function bearerOf(header: string | undefined): { bearer: boolean; token: string } {
  if (header === undefined) return { bearer: false, token: '' };
  const space = header.indexOf(' ');
  const scheme = space < 0 ? header : header.slice(0, space);
  return { bearer: scheme.toLowerCase() === 'bearer', token: space < 0 ? '' : header.slice(space + 1) };
}

export function authMiddleware(opts: AuthOptions): MiddlewareHandler<WebEnv> {
  const expected = digest(opts.token);
  return async (c, next) => {
    const path = c.req.path;
    if (opts.publicPaths.has(path) || opts.bypass?.(c)) return next();
    const { bearer, token } = bearerOf(c.req.header('authorization'));
    let presented = bearer ? token : '';
    if (!bearer && path.endsWith('/calendar.ics')) presented = c.req.query('token') ?? '';
    if (!tokenMatches(presented, expected)) {
      return jsonError(401, 'unauthorized', { 'www-authenticate': 'Bearer realm="cronstable"' });
    }
    return next();
  };
}
