// The web token table (spec 10 §2.1): the single `authToken` (all scopes) plus the scoped
// `authTokens`, resolved from their secret sources. Resolution is all or nothing: a table with an
// unreadable or empty entry is refused, so a half-written rotation never opens or narrows access.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { WebSection } from '../config/file-schema.ts';
import { CronstableError, errorText } from '../util/errors.ts';

/** A web configuration problem: the daemon logs it and keeps running without the web API. */
export class WebConfigError extends CronstableError {
  constructor(message: string) {
    super('web-config', message);
    this.name = 'WebConfigError';
  }
}

export type Scope = 'view' | 'control' | 'approve';
export const ALL_SCOPES: readonly Scope[] = ['approve', 'control', 'view'];

export interface WebToken {
  label: string;
  /** Effective scopes: `control` and `approve` imply `view`. */
  scopes: ReadonlySet<Scope>;
  /** SHA-256 of the secret, compared in constant time. */
  digest: Buffer;
}

export interface TokenTable {
  tokens: readonly WebToken[];
  /** Scopes a request with no credential holds (`web.anonymousScopes`). */
  anonymous: ReadonlySet<Scope>;
}

interface Source {
  value?: string | null;
  fromFile?: string | null;
  fromEnvVar?: string | null;
}

const nonEmpty = (s: string | null | undefined): s is string => typeof s === 'string' && s !== '';

export const secretDigest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** One secret source, precedence value -> fromFile -> fromEnvVar; '' when it resolves to nothing. */
function resolveSource(src: Source, where: string, env: NodeJS.ProcessEnv): string {
  if (nonEmpty(src.value)) return String(src.value);
  if (nonEmpty(src.fromFile)) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(src.fromFile);
    } catch (e) {
      throw new WebConfigError(`${where}.fromFile could not be read: ${errorText(e)}`);
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes).trim();
    } catch {
      throw new WebConfigError(`${where}.fromFile could not be read: ${src.fromFile} is not valid UTF-8`);
    }
  }
  if (nonEmpty(src.fromEnvVar)) return env[src.fromEnvVar] ?? '';
  return '';
}

/**
 * The configured single token, or null when it is absent. A configured `authToken` that resolves
 * to nothing is an error (the web API must not start open).
 */
export function resolveAuthToken(web: WebSection, env: NodeJS.ProcessEnv = process.env): string | null {
  const src = web.authToken;
  if (src === null || src === undefined) return null;
  const token = resolveSource(src, 'web.authToken', env);
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

const withView = (scopes: readonly Scope[]): ReadonlySet<Scope> => new Set<Scope>([...scopes, 'view']);

/** The whole table, or null when no token is configured (no auth layer at all). */
export function resolveTokenTable(web: WebSection, env: NodeJS.ProcessEnv = process.env): TokenTable | null {
  const entries: { label: string; secret: string; scopes: ReadonlySet<Scope> }[] = [];
  const single = resolveAuthToken(web, env);
  if (single !== null) entries.push({ label: 'authToken', secret: single, scopes: new Set(ALL_SCOPES) });
  (web.authTokens ?? []).forEach((t, i) => {
    const where = `web.authTokens[${i}]`;
    const secret = resolveSource(t, where, env);
    if (secret === '')
      throw new WebConfigError(
        `${where} is configured but resolved to an empty token; refusing to start the web API without authentication`,
      );
    entries.push({ label: nonEmpty(t.label) ? t.label : where, secret, scopes: withView(t.scopes) });
  });
  if (entries.length === 0) return null;
  const seen = new Map<string, string>();
  for (const e of entries) {
    const first = seen.get(e.secret);
    if (first !== undefined)
      throw new WebConfigError(
        `web token '${e.label}' resolves to the same secret as '${first}'; duplicate secrets are refused because requests match tokens by secret, so only one entry's scopes could apply`,
      );
    seen.set(e.secret, e.label);
  }
  return {
    tokens: entries.map((e) => ({ label: e.label, scopes: e.scopes, digest: secretDigest(e.secret) })),
    anonymous: new Set(web.anonymousScopes ?? []),
  };
}

/** Fingerprints (mtime ns, size) of every `fromFile` source: a change means the table must be re-read. */
export function tokenFilesFingerprint(web: WebSection): string {
  const files = [web.authToken?.fromFile, ...(web.authTokens ?? []).map((t) => t.fromFile)].filter(nonEmpty);
  return files
    .map((f) => {
      try {
        const st = statSync(f, { bigint: true });
        return `${f}:${st.mtimeNs}:${st.size}`;
      } catch {
        return `${f}:none`;
      }
    })
    .join('|');
}

/** `web: requiring bearer-token authentication (...)`, the start-up line of spec 10 §2.1. */
export function tokenTableSummary(table: TokenTable): string {
  const n = table.tokens.length;
  const anon =
    table.anonymous.size > 0
      ? `; anonymous requests granted scopes: ${[...table.anonymous].sort().join(', ')}`
      : '';
  return `web: requiring bearer-token authentication (${n} token${n === 1 ? '' : 's'}${anon})`;
}
