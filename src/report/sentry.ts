// Sentry reporter (reporting spec §9.10), speaking the envelope protocol directly.
//
// @sentry/node is deliberately not used: it pulls in OpenTelemetry, bloats the single-file
// bundle and slows `cronstable --version`. A report is one `event` item POSTed to
// `{protocol}://{host}{path}/api/{project_id}/envelope/`. There is no SDK state, so the
// spec's "re-initialise when (dsn, environment) changes" has nothing to do.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { ReportBlock } from '../config/types.ts';
import { DEFAULT_SENTRY_BODY, DEFAULT_SENTRY_FINGERPRINT } from './defaults.ts';
import { describeFetchError } from './fetcherr.ts';
import { hasSecretSource, requiredSecret } from './secrets.ts';
import type * as Templates from './template.ts';
import { loadTemplates } from './templates-lazy.ts';
import type { ReportContext, ReportOptions } from './types.ts';

export type SentryConfig = NonNullable<ReportBlock['sentry']>;

export const SENTRY_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_STRING_LENGTH = 8192;

declare const __CRONSTABLE_VERSION__: string | undefined;

let version: string | undefined;
function clientVersion(): string {
  if (version === undefined) {
    if (typeof __CRONSTABLE_VERSION__ === 'string') version = __CRONSTABLE_VERSION__;
    else {
      try {
        version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
      } catch {
        version = '0.0.0';
      }
    }
  }
  return version ?? '0.0.0';
}

export class SentryError extends Error {
  override name = 'SentryError';
}

export interface ParsedDsn {
  publicKey: string;
  secretKey: string;
  /** The envelope endpoint. */
  envelopeUrl: string;
  projectId: string;
}

/** Parses `{protocol}://{public_key}[:secret]@{host}[:port]/[path/]{project_id}`. */
export function parseDsn(dsn: string): ParsedDsn {
  let url: URL;
  try {
    url = new URL(dsn.trim());
  } catch {
    throw new SentryError('sentry: the DSN is not a valid URL');
  }
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const projectId = segments.pop();
  if (!/^https?:$/.test(url.protocol) || !url.username || !projectId) {
    throw new SentryError('sentry: the DSN is malformed');
  }
  const prefix = segments.length > 0 ? `/${segments.join('/')}` : '';
  return {
    publicKey: decodeURIComponent(url.username),
    secretKey: decodeURIComponent(url.password),
    projectId,
    envelopeUrl: `${url.protocol}//${url.host}${prefix}/api/${projectId}/envelope/`,
  };
}

/** Configured when a DSN source is set. */
export function isSentryConfigured(cfg: SentryConfig | null | undefined): cfg is SentryConfig {
  return !!cfg && hasSecretSource(cfg.dsn);
}

/** Sentry's level names; Python's `critical` is Sentry's `fatal`. */
export function sentryLevel(level: string | null | undefined): string {
  const l = (level || 'error').toLowerCase();
  if (l === 'critical') return 'fatal';
  if (l === 'warn') return 'warning';
  return l;
}

/** Cuts strings longer than `max` to `max` characters ending in `...` (as the SDKs do). */
export function truncateString(s: string, max: number): string {
  if (max <= 0 || s.length <= max) return s;
  return `${s.slice(0, Math.max(0, max - 3))}...`;
}

export interface SentryEvent {
  event_id: string;
  timestamp: number;
  platform: 'node';
  level: string;
  logger: 'cronstable';
  server_name: string;
  message: string;
  fingerprint: string[];
  extra: Record<string, unknown>;
  environment?: string;
  sdk: { name: string; version: string };
}

/** Renders the event of one report (no I/O) with the loaded template engine. */
export function buildSentryEvent(
  cfg: SentryConfig,
  ctx: ReportContext,
  nowMs: number,
  { renderTemplate, templateVars }: typeof Templates,
): SentryEvent {
  const vars = templateVars(ctx);
  const max = cfg.maxStringLength ?? DEFAULT_MAX_STRING_LENGTH;
  const body = renderTemplate(cfg.body ?? DEFAULT_SENTRY_BODY, vars);
  const fingerprint = (cfg.fingerprint ?? DEFAULT_SENTRY_FINGERPRINT).map((t) => renderTemplate(t, vars));
  const extra: Record<string, unknown> = {
    job: ctx.name,
    exit_code: ctx.exit_code,
    command: ctx.command,
    shell: ctx.shell,
    success: ctx.success,
    ...(cfg.extra ?? {}),
  };
  for (const [k, v] of Object.entries(extra)) if (typeof v === 'string') extra[k] = truncateString(v, max);
  const event: SentryEvent = {
    event_id: randomBytes(16).toString('hex'),
    timestamp: nowMs / 1000,
    platform: 'node',
    level: sentryLevel(cfg.level),
    logger: 'cronstable',
    server_name: hostname(),
    message: truncateString(body, max),
    fingerprint,
    extra,
    sdk: { name: 'cronstable', version: clientVersion() },
  };
  if (cfg.environment) event.environment = cfg.environment;
  return event;
}

/** The envelope body carrying one event. */
export function buildEnvelope(event: SentryEvent, nowMs: number): string {
  const payload = JSON.stringify(event);
  const header = JSON.stringify({
    event_id: event.event_id,
    sent_at: new Date(nowMs).toISOString(),
    sdk: event.sdk,
  });
  const item = JSON.stringify({
    type: 'event',
    content_type: 'application/json',
    length: Buffer.byteLength(payload),
  });
  return `${header}\n${item}\n${payload}\n`;
}

function mask(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join('***');
  return out;
}

/** Sends the report to Sentry; returns when unconfigured or skipped. Throws on failure. */
export async function sendSentryReport(
  cfg: SentryConfig | null | undefined,
  ctx: ReportContext,
  opts: ReportOptions,
): Promise<void> {
  if (!isSentryConfigured(cfg)) return;
  const { logger } = opts;
  const dsnText = await requiredSecret(cfg.dsn, opts, 'sentry: dsn');
  if (dsnText === null) return;
  const dsn = parseDsn(dsnText);
  const nowMs = (opts.now ?? Date.now)();
  const event = buildSentryEvent(cfg, ctx, nowMs, await loadTemplates());
  logger.debug(
    `sentry: fingerprint=${JSON.stringify(event.fingerprint)} extra=${JSON.stringify(event.extra)}`,
  );
  logger.debug(`sentry: body=${JSON.stringify(event.message)}`);

  const secrets = [dsnText.trim(), dsn.publicKey, dsn.secretKey];
  const auth = [
    'Sentry sentry_version=7',
    `sentry_client=cronstable/${clientVersion()}`,
    `sentry_key=${dsn.publicKey}`,
    ...(dsn.secretKey ? [`sentry_secret=${dsn.secretKey}`] : []),
  ].join(', ');
  let status: number;
  let text = '';
  try {
    const res = await fetch(dsn.envelopeUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-sentry-envelope', 'X-Sentry-Auth': auth },
      body: buildEnvelope(event, nowMs),
      signal: AbortSignal.timeout(SENTRY_TIMEOUT_MS),
    });
    status = res.status;
    if (status >= 400) text = (await res.text()).slice(0, 1024);
    else await res.body?.cancel();
  } catch (err) {
    throw new SentryError(mask(`sentry: sending the event failed: ${describeFetchError(err)}`, secrets));
  }
  if (status >= 400) throw new SentryError(mask(`sentry: server returned HTTP ${status}: ${text}`, secrets));
  logger.debug(`sentry: event ${event.event_id} of job ${ctx.name} sent`);
}
