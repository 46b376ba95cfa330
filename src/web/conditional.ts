// Conditional GET and gzip (spec 10 §4.10): entity tags, the If-None-Match matcher, Accept-Encoding
// negotiation, and the one answer builder every cacheable route uses, so a 304 and a 200 of the same
// route cannot disagree on their headers.
import type { SharedBody } from '../api/shared-body.ts';
import { type Ctx, JSON_TYPE } from './respond.ts';

/** What `new Response()` accepts (the DOM `BodyInit`, which Node's types do not declare globally). */
type ResponseBody = ConstructorParameters<typeof Response>[0];

/** Bodies below this many bytes go out as they are: gzip's framing would eat the saving. */
export const GZIP_MIN_BYTES = 1024;

/**
 * Whether an `If-None-Match` header names `tag`: a comma list, `*`, and weak tags (`W/"…"`) all match,
 * since a GET compares weakly (RFC 9110 §13.1.2).
 */
export function ifNoneMatchHits(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  for (const raw of header.split(',')) {
    let t = raw.trim();
    if (t === '*') return true;
    if (t.startsWith('W/') || t.startsWith('w/')) t = t.slice(2);
    if (t === tag) return true;
  }
  return false;
}

/** Whether an Accept-Encoding header admits gzip with q > 0. */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  for (const part of header.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

/** A body to serve: its bytes, its gzip, and its entity tag (null: the route sends none). */
export type Cacheable = Pick<SharedBody, 'bytes' | 'gzipped'> & { tag: string | null };

export interface ServeOptions {
  contentType: string;
  /** The request's If-None-Match and Accept-Encoding. */
  ifNoneMatch: string | undefined;
  acceptEncoding: string | undefined;
  /** The smallest body that is gzipped (`/` is always gzipped when accepted). */
  minGzip?: number;
  /** Vary beyond Accept-Encoding (`/metrics` varies on Accept too). */
  vary?: string;
  /** Extra headers on the 200 and the 304 alike (`/`'s Cache-Control and security headers). */
  headers?: Record<string, string>;
}

/** The 200 (gzipped when accepted and big enough) or, when If-None-Match names the tag, a bodiless 304. */
export function serveCacheable(entity: Cacheable, opts: ServeOptions): Response {
  const headers: Record<string, string> = { vary: opts.vary ?? 'accept-encoding', ...opts.headers };
  if (entity.tag !== null) {
    headers.etag = entity.tag;
    if (ifNoneMatchHits(opts.ifNoneMatch, entity.tag)) return new Response(null, { status: 304, headers });
  }
  headers['content-type'] = opts.contentType;
  if (entity.bytes.length >= (opts.minGzip ?? GZIP_MIN_BYTES) && acceptsGzip(opts.acceptEncoding)) {
    headers['content-encoding'] = 'gzip';
    return new Response(entity.gzipped() as ResponseBody, { headers });
  }
  return new Response(entity.bytes as ResponseBody, { headers });
}

/** A JSON body under conditional GET: the request's validators and codings read from `c`. */
export function serveJson(c: Ctx, entity: Cacheable, vary?: string): Response {
  return serveCacheable(entity, {
    contentType: JSON_TYPE,
    ifNoneMatch: c.req.header('if-none-match'),
    acceptEncoding: c.req.header('accept-encoding'),
    vary,
  });
}

/**
 * Whether an Accept header lists `application/json` with q > 0 (spec 10 §4.8): any one media range
 * suffices (`text/html, application/json;q=0.9`); `*\/*` and `application/*` keep the text form.
 */
export function acceptsJson(header: string | undefined): boolean {
  if (!header) return false;
  for (const part of header.split(',')) {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    if (range?.trim() !== 'application/json') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}
