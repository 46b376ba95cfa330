// Webhook reporter (reporting spec §9.8) over the built-in fetch.
//
// The URL often embeds a token, so it never reaches a log line or an error message: errors
// from fetch are rebuilt from their codes with every part of the URL masked.
//
// GET and HEAD: fetch refuses a request body for these methods, so the rendered body is
// dropped for them (the reference sends it for every method). Every other method sends it.
import type { ReportBlock } from '../config/types.ts';
import { DEFAULT_WEBHOOK_BODY } from './defaults.ts';
import { describeFetchError } from './fetcherr.ts';
import { hasSecretSource, requiredSecret } from './secrets.ts';
import { loadTemplates } from './templates-lazy.ts';
import type { ReportContext, ReportOptions } from './types.ts';

export type WebhookConfig = NonNullable<ReportBlock['webhook']>;

export const DEFAULT_WEBHOOK_TIMEOUT_S = 10;
const MASK = '<webhook url>';
/** Path segments and query values at least this long are masked on their own. */
const MIN_PIECE = 6;

/** Configured when a URL source is set. */
export function isWebhookConfigured(cfg: WebhookConfig | null | undefined): cfg is WebhookConfig {
  return !!cfg && hasSecretSource(cfg.url);
}

/** A reporter error whose text is known to be free of the webhook URL. */
export class WebhookError extends Error {
  override name = 'WebhookError';
}

/** Every fragment of `url` that could leak a secret, longest first. */
function urlFragments(raw: string, url: URL): string[] {
  const parts = new Set<string>([raw, raw.trim()]);
  parts.add(url.href);
  parts.add(url.origin);
  parts.add(url.host);
  parts.add(url.hostname);
  if (url.pathname.length > 1) parts.add(url.pathname);
  if (url.search) parts.add(url.search);
  if (url.username) parts.add(url.username);
  if (url.password) parts.add(url.password);
  parts.add(`${url.pathname}${url.search}`);
  // Tokens often are one path segment or one query value: mask those on their own too.
  const pieces = [...url.pathname.split('/'), ...[...url.searchParams.values()]];
  for (const p of pieces) {
    if (p.length < MIN_PIECE) continue;
    parts.add(p);
    try {
      parts.add(decodeURIComponent(p));
    } catch {
      // not percent-encoded text
    }
  }
  return [...parts].filter((p) => p.length > 1 && p !== '/').sort((a, b) => b.length - a.length);
}

/** Removes every URL fragment from `text`. */
export function maskUrl(text: string, fragments: string[]): string {
  let out = text;
  for (const f of fragments) out = out.split(f).join(MASK);
  return out;
}

/** Builds the request headers: Content-Type first, then `headers` on top (case-insensitive). */
export function webhookHeaders(
  contentType: string,
  extra: Record<string, string> | null | undefined,
): Headers {
  const headers = new Headers();
  headers.set('Content-Type', contentType);
  for (const [k, v] of Object.entries(extra ?? {})) headers.set(k, String(v));
  return headers;
}

/** Posts the report; returns without sending when unconfigured or skipped. Throws on failure. */
export async function sendWebhookReport(
  cfg: WebhookConfig | null | undefined,
  ctx: ReportContext,
  opts: ReportOptions,
): Promise<void> {
  if (!isWebhookConfigured(cfg)) return;
  const { logger } = opts;
  const urlText = await requiredSecret(cfg.url, opts, 'webhook: url');
  if (urlText === null) return;
  const raw = urlText.trim();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookError(`webhook reporter of job ${ctx.name}: the url is not a valid URL`);
  }
  const fragments = urlFragments(urlText, url);

  const { renderTemplate, templateVars } = await loadTemplates();
  const body = renderTemplate(cfg.body ?? DEFAULT_WEBHOOK_BODY, templateVars(ctx));
  const method = (cfg.method || 'POST').toUpperCase();
  const timeout = cfg.timeout && cfg.timeout > 0 ? cfg.timeout : DEFAULT_WEBHOOK_TIMEOUT_S;
  const signal = AbortSignal.timeout(Math.ceil(timeout * 1000));

  let status: number;
  let text = '';
  try {
    const headers = webhookHeaders(cfg.contentType || 'application/json', cfg.headers);
    const res = await fetch(url, {
      method,
      headers,
      body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.from(body, 'utf8'),
      signal,
      redirect: 'follow',
    });
    status = res.status;
    if (status >= 400) text = await res.text();
    else await res.body?.cancel();
  } catch (err) {
    const detail = maskUrl(describeFetchError(err), fragments);
    throw new WebhookError(`webhook reporter of job ${ctx.name}: request failed: ${detail}`);
  }
  if (status >= 400) {
    const shown = maskUrl(text.slice(0, 1024), fragments);
    logger.error(`webhook reporter of job ${ctx.name}: server returned HTTP ${status}: ${shown}`);
  } else {
    logger.debug(`webhook reporter of job ${ctx.name}: server returned HTTP ${status}`);
  }
}
