// Client-side TLS for the daemon's own clients, `cronstable tui` and `cronstable mcp` (spec 10 §3.3):
// the four flags and their environment variables, the files they name loaded and proven usable
// before any request, and the words for a handshake that fails.
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';

/** What the operator asked for; paths as given. */
export interface ClientTlsSpec {
  cacert: string | null;
  clientCert: string | null;
  clientKey: string | null;
  insecure: boolean;
}

/** Options for `https.request`. */
export interface ClientTlsOptions {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized: boolean;
  checkServerIdentity?: () => undefined;
}

export const CLIENT_TLS_ENV = {
  cacert: 'CRONSTABLE_WEB_CACERT',
  clientCert: 'CRONSTABLE_WEB_CLIENT_CERT',
  clientKey: 'CRONSTABLE_WEB_CLIENT_KEY',
  insecure: 'CRONSTABLE_WEB_INSECURE',
} as const;

/** The `parseArgs` options both verbs accept. */
export const CLIENT_TLS_FLAGS = {
  cacert: { type: 'string' },
  'client-cert': { type: 'string' },
  'client-key': { type: 'string' },
  insecure: { type: 'boolean' },
} as const;

export const CLIENT_TLS_USAGE = `  --cacert PATH      verify the daemon's certificate against this CA file ($${CLIENT_TLS_ENV.cacert})
  --client-cert PATH present this client certificate ($${CLIENT_TLS_ENV.clientCert})
  --client-key PATH  the client certificate's key ($${CLIENT_TLS_ENV.clientKey})
  --insecure         no certificate or hostname checks ($${CLIENT_TLS_ENV.insecure}=1)`;

/**
 * Flag first, then the environment variable; an empty variable is unset. Null when nothing is set,
 * so the default transport (system roots, hostname checks) is used.
 */
export function resolveClientTls(
  values: Record<string, string | boolean | undefined>,
  env: NodeJS.ProcessEnv,
): ClientTlsSpec | null {
  const pick = (flag: string, name: string): string | null => {
    const v = values[flag];
    if (typeof v === 'string' && v !== '') return v;
    return env[name] || null;
  };
  const spec: ClientTlsSpec = {
    cacert: pick('cacert', CLIENT_TLS_ENV.cacert),
    clientCert: pick('client-cert', CLIENT_TLS_ENV.clientCert),
    clientKey: pick('client-key', CLIENT_TLS_ENV.clientKey),
    insecure: values.insecure === true || /^(1|true|yes)$/i.test((env[CLIENT_TLS_ENV.insecure] ?? '').trim()),
  };
  const any = spec.cacert || spec.clientCert || spec.clientKey || spec.insecure;
  return any ? spec : null;
}

/** `--cacert=a, --client-cert=b, --client-key=c`: the material in play, in that order. */
export function materialList(spec: ClientTlsSpec): string {
  const out: string[] = [];
  if (spec.cacert) out.push(`--cacert=${spec.cacert}`);
  if (spec.clientCert) out.push(`--client-cert=${spec.clientCert}`);
  if (spec.clientKey) out.push(`--client-key=${spec.clientKey}`);
  return out.join(', ');
}

/** The material cannot be used; `reason` is the OS or PEM error, `material` the materialList. */
export class ClientTlsError extends Error {
  readonly reason: string;
  /** `cause`: what fs or tls threw (always an Error), or the rule the flags broke. */
  constructor(
    readonly material: string,
    cause: Error,
  ) {
    super(`${cause.message} (${material})`, { cause });
    this.reason = cause.message;
  }
}

export const KEY_WITHOUT_CERT = 'a client key needs its certificate: pass both, or neither';

/**
 * Reads the files and builds a secure context from them once, so a missing file, a bad PEM or a
 * key that does not match its certificate fails here, before any request, naming the flags.
 * A certificate without `--client-key` reads its key from the same file (a combined PEM).
 */
export function loadClientTls(spec: ClientTlsSpec): ClientTlsOptions {
  const material = materialList(spec);
  if (spec.clientKey && !spec.clientCert) throw new ClientTlsError(material, new Error(KEY_WITHOUT_CERT));
  const out: ClientTlsOptions = { rejectUnauthorized: !spec.insecure };
  try {
    if (spec.cacert) out.ca = readFileSync(spec.cacert);
    if (spec.clientCert) {
      out.cert = readFileSync(spec.clientCert);
      out.key = readFileSync(spec.clientKey ?? spec.clientCert);
    }
    createSecureContext({ ca: out.ca, cert: out.cert, key: out.key });
  } catch (e) {
    throw new ClientTlsError(material, e as Error);
  }
  if (spec.insecure) out.checkServerIdentity = () => undefined;
  return out;
}

/** Warnings beyond the verb's own `--insecure` line: material that `--insecure` makes pointless. */
export function insecureExtras(spec: ClientTlsSpec): string[] {
  if (!spec.insecure || !spec.cacert) return [];
  return [
    `warning: --insecure is given, so --cacert=${spec.cacert} is not used: no certificate is verified at all`,
  ];
}

// OpenSSL's verification results as Node names them, plus Node's own hostname check.
const VERIFY_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

// How a server that wants a client certificate ends the connection once the handshake is done: a
// TLS 1.3 alert, or a bare reset/close when the alert is lost.
const CLOSED_CODES =
  /^(ECONNRESET|EPIPE|ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED|ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE)$/;

export type TlsFailure =
  | { kind: 'verify'; reason: string }
  | { kind: 'client-certificate' }
  | { kind: 'other'; reason: string };

/**
 * What a failed request to `url` says about TLS: the server's certificate was not trusted, or
 * (https, no client certificate presented) the peer hung up as a mutual-TLS listener does; null
 * for an error with nothing to do with TLS (a refused connection, a timeout).
 */
export function tlsFailure(url: string, error: unknown, presentedCert: boolean): TlsFailure | null {
  if (!url.startsWith('https:')) return null;
  const e = (error instanceof Error && error.cause instanceof Error ? error.cause : error) as
    | NodeJS.ErrnoException
    | undefined;
  const code = e?.code ?? '';
  if (VERIFY_CODES.has(code)) return { kind: 'verify', reason: e?.message ?? code };
  if (!presentedCert && CLOSED_CODES.test(code)) return { kind: 'client-certificate' };
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_'))
    return { kind: 'other', reason: e?.message ?? code };
  return null;
}

/** The Do-better text of spec 10 §3.3 for a listener that closed on a client without a certificate. */
export const closedForCertificate = (endpoint: string): string =>
  `the listener at ${endpoint} closed the connection; it may require a client certificate (pass --client-cert and --client-key)`;
