// Response helpers: JSON with charset, text, and the project's JSON error bodies
// (`{"error": "<message>"}` for every 4xx/5xx).
import type { Context } from 'hono';
import type { ApiResult } from '../api/types.ts';

/** What `new Response()` accepts (the DOM `BodyInit`, which Node's types do not declare globally). */
type ResponseBody = ConstructorParameters<typeof Response>[0];

import { JSON_TYPE } from '../http/json.ts';

export { JSON_TYPE };
export const TEXT_TYPE = 'text/plain; charset=utf-8';

export type WebEnv = {
  Variables: {
    /** Set by handlers whose non-2xx answer still carries `web.headers` (spec 06 §2.3). */
    customHeaders: boolean;
    /** Set by the auth layer (spec 10 §2.3): the matched token or the anonymous grant. */
    caller: { label: string | null; scopes: ReadonlySet<'view' | 'control' | 'approve'> };
  };
};

export type Ctx = Context<WebEnv>;

export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': JSON_TYPE, ...headers },
  });
}

export function text(body: string | Uint8Array, status = 200, type = TEXT_TYPE): Response {
  return new Response(body as ResponseBody, { status, headers: { 'content-type': type } });
}

export function jsonError(status: number, message: string, headers?: Record<string, string>): Response {
  return json({ error: message }, status, headers);
}

/** An error answer that still gets `web.headers` (start/cancel 409, schedule 400). */
export function errorWithHeaders(c: Ctx, status: number, message: string): Response {
  c.set('customHeaders', true);
  return jsonError(status, message);
}

/** Integer query parameter: missing or unparsable -> default, out of range -> clamped (never a 400). */
export function intParam(value: string | undefined, def: number, min: number, max: number): number {
  if (value === undefined || !/^\s*[+-]?\d+\s*$/.test(value)) return def;
  const n = Number.parseInt(value, 10);
  if (!Number.isFinite(n)) return def;
  return Math.min(max, Math.max(min, n));
}

/**
 * A listing's size (spec 10 §4.5): `limit` when given, else the route's legacy name; unparsable
 * means the default (the legacy name is then not consulted), out of range is clamped, never a 400.
 */
export function limitParam(c: Ctx, legacy: string | null, def: number, min: number, max: number): number {
  const limit = c.req.query('limit');
  const raw = limit !== undefined || legacy === null ? limit : c.req.query(legacy);
  return intParam(raw, def, min, max);
}

/** A path parameter (decoded by Hono; `%2F` stays inside the segment). */
export function param(c: Ctx, key: string): string {
  return c.req.param(key) ?? '';
}

/** An API-layer answer (src/api) as a response: the body, or `{"error": message}` with its status. */
export function answer<T>(r: ApiResult<T>): Response {
  return r.ok ? json(r.body) : jsonError(r.status, r.error);
}
