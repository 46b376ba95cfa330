// The `push:` section and the `report.push` reporter keys (spec 10 §6.1): schema pieces, the
// resolved settings the daemon reads, and the load-time rules, some of which need other sections
// (`state:`, `web:`, every report block). Pure.
import { type ConfigIssue, issueAt, type SourcePos } from './errors.ts';
import { type ListenerSection, openListeners } from './listeners.ts';
import { Locator } from './locate.ts';
import { bool, enumOf, finiteFloat, map, nullable, str } from './validators.ts';

export const PUSH_PRIORITIES = ['time-sensitive', 'passive'] as const;
export type PushPriority = (typeof PUSH_PRIORITIES)[number];

/** `report.push` in every report block; absent keys take the defaults of `resolvePushReport`. */
export const pushReporterSchema = nullable(
  map({ enabled: bool(), priority: enumOf(...PUSH_PRIORITIES), includeLogTail: bool() }),
);

/** The top-level `push:` section. */
export const pushSchema = map(
  {
    relay: map({ url: str(), timeout: finiteFloat() }, ['url']),
    devicesFile: nullable(str()),
    allowUnauthenticated: bool(),
  },
  ['relay'],
);

type PushReporterRaw = { enabled?: boolean; priority?: PushPriority; includeLogTail?: boolean } | null;
export type PushSectionRaw = {
  relay: { url: string; timeout?: number };
  devicesFile?: string | null;
  allowUnauthenticated?: boolean;
};

/** A report block's push reporter with its defaults applied. */
export interface PushReport {
  enabled: boolean;
  priority: PushPriority;
  includeLogTail: boolean;
}

export function resolvePushReport(raw: PushReporterRaw | undefined): PushReport {
  return {
    enabled: raw?.enabled ?? false,
    priority: raw?.priority ?? 'time-sensitive',
    includeLogTail: raw?.includeLogTail ?? true,
  };
}

/** The `push:` section as the daemon uses it. */
export interface PushSettings {
  relayUrl: string;
  /** Seconds one relay request may take. */
  relayTimeout: number;
  /** The local registry file; null means the store. */
  devicesFile: string | null;
  allowUnauthenticated: boolean;
}

export const DEFAULT_RELAY_TIMEOUT = 10;

export function resolvePush(raw: PushSectionRaw): PushSettings {
  return {
    relayUrl: raw.relay.url,
    relayTimeout: raw.relay.timeout ?? DEFAULT_RELAY_TIMEOUT,
    devicesFile: raw.devicesFile ? raw.devicesFile : null,
    allowUnauthenticated: raw.allowUnauthenticated ?? false,
  };
}

/** A URL with any `user:password@` replaced, for error and log texts. */
export function redactUserinfo(url: string): string {
  return url.replace(/^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)[^/?#@]*@/, '$1***@');
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** Where pairing links point (spec 10 §6.5): the relay's origin (no userinfo) plus `/pair`. */
export function pairLinkBase(relayUrl: string): string {
  return `${new URL(relayUrl).origin}/pair`;
}

/** What the section's rules read of the rest of the configuration. */
export interface PushContext {
  hasState: boolean;
  web: ListenerSection | null;
}

/** The section's own rules and those against `state:` and `web:`, in the spec's order. */
export function checkPush(
  push: PushSectionRaw,
  ctx: PushContext,
  fallback: SourcePos,
  issues: ConfigIssue[],
): void {
  const loc = new Locator([push], fallback);
  const url = push.relay.url;
  if (!isHttpUrl(url))
    issues.push(
      loc.issue(['relay', 'url'], `push.relay.url must be an http(s) URL, got '${redactUserinfo(url)}'`),
    );
  const timeout = push.relay.timeout;
  if (timeout !== undefined && !(timeout > 0))
    issues.push(loc.issue(['relay', 'timeout'], 'push.relay.timeout must be > 0 seconds'));
  if (!ctx.hasState && !push.devicesFile)
    issues.push(
      issueAt(
        fallback,
        'push',
        'push: needs durable storage for its paired-device registry: configure a `state:` section (shared store, cluster-visible pairings) or set push.devicesFile (single node)',
      ),
    );
  const open = ctx.web && !push.allowUnauthenticated ? openListeners(ctx.web) : [];
  if (open.length > 0)
    issues.push(
      issueAt(
        fallback,
        'push',
        `push: is configured but no web.authToken/authTokens is set, and the web API listens on non-loopback address(es) ${open.join(', ')}: the device registry (/push/devices) would be served without authentication, so anyone who reaches it could pair a phone and receive this daemon's alerts. Set web.authToken or a web.authTokens entry, restrict web.listen to loopback/unix-socket addresses, set web.tls.clientCa so the listener authenticates callers by certificate, or set push.allowUnauthenticated: true when the endpoint is protected by other means (an mTLS-terminating proxy, a network policy).`,
      ),
    );
}

/** The report blocks' holder keys of jobs and DAG tasks (spec 10 §6.1). */
const HOLDERS = ['onFailure', 'onPermanentFailure', 'onSuccess', 'onLate'] as const;

type Holder = { report?: { push?: PushReporterRaw } | null } | null | undefined;

/** Whether any report block of a job or task enables the push reporter. */
export function enablesPush(owner: object): boolean {
  return HOLDERS.some((k) => (owner as Record<string, Holder>)[k]?.report?.push?.enabled === true);
}

/** The cross-section rule: `users` (`job J`, `dag D task T`, `notify`) enable push with no section. */
export function pushWithoutSection(users: readonly string[], at?: SourcePos): ConfigIssue | null {
  if (users.length === 0) return null;
  return {
    ...at,
    message: `report.push.enabled is set (${[...new Set(users)].sort().join(', ')}) but no \`push:\` section is configured; add one (push.relay.url plus a \`state:\` section or push.devicesFile) or disable the push reporter`,
  };
}
