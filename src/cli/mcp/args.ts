// `cronstable mcp` flags (spec 07 §8.1): parsed into the few values the relay and the check need.
// Pure, so the usage rules are testable without a process; bad values are usage errors (exit 2).
import { parseArgs } from 'node:util';
import {
  CLIENT_TLS_FLAGS,
  CLIENT_TLS_USAGE,
  type ClientTlsSpec,
  resolveClientTls,
} from '../../http/client-tls.ts';
import { errorText } from '../../util/errors.ts';

export const MCP_USAGE = `usage: cronstable mcp [--url URL] [--token-env VAR | --token TOKEN] [--protocol-version REV]
                     [--timeout SECONDS] [--check]
                     [--cacert PATH] [--client-cert PATH --client-key PATH] [--insecure]

Relay MCP JSON-RPC between stdin/stdout and a running daemon's POST /mcp endpoint, one message
per line, for MCP clients that start their servers as subprocesses. It loads no configuration and
starts no daemon.

  --url URL                 the daemon's web address; the endpoint is URL/mcp
                            (default: http://127.0.0.1:8080)
  --token-env VAR           read the bearer token from environment variable VAR
                            (default: CRONSTABLE_WEB_TOKEN)
  --token TOKEN             the bearer token itself (visible in ps; prefer --token-env)
  --protocol-version REV    MCP revision sent until initialize negotiates one (default: 2025-11-25)
  --timeout SECONDS         deadline of each request (default: 30)
  --check                   initialize and list the tools once, print a verdict, exit 0 or 1
${CLIENT_TLS_USAGE.replace(/^ {2}(--\S+(?: PATH)?) +/gm, (_m, f: string) => `  ${f.padEnd(26)}`)}
  -h, --help                show this help`;

export const DEFAULT_URL = 'http://127.0.0.1:8080';
export const DEFAULT_PROTOCOL = '2025-11-25';
export const DEFAULT_TOKEN_ENV = 'CRONSTABLE_WEB_TOKEN';

export interface BridgeOptions {
  /** `<url>/mcp`, as printed in messages. */
  endpoint: string;
  /** The bearer token, or null for no Authorization header. */
  token: string | null;
  protocolVersion: string;
  timeoutMs: number;
  check: boolean;
  /** Client TLS flags and variables (spec 10 §3.3), or null for the default transport. */
  tls: ClientTlsSpec | null;
}

export type ParsedArgs = { kind: 'help' } | { kind: 'run'; options: BridgeOptions; warnings: string[] };

export class UsageError extends Error {}

// An environment variable name as shells spell them; anything else is surely a typo'd flag value.
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Protocol revisions are dates; the header value must be plain anyway.
const REVISION = /^\d{4}-\d{2}-\d{2}$/;
// A per-request deadline past a day is a typo; setTimeout also caps near 24.8 days.
const MAX_TIMEOUT_S = 86_400;

export function parseBridgeArgs(argv: string[], env: NodeJS.ProcessEnv): ParsedArgs {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        token: { type: 'string' },
        'token-env': { type: 'string' },
        'protocol-version': { type: 'string' },
        timeout: { type: 'string' },
        check: { type: 'boolean' },
        ...CLIENT_TLS_FLAGS,
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new UsageError(errorText(e));
  }
  if (values.help) return { kind: 'help' };
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const str = (k: string) => values[k] as string | undefined;

  const endpoint = endpointOf(str('url') ?? DEFAULT_URL);

  const protocolVersion = str('protocol-version') ?? DEFAULT_PROTOCOL;
  if (!REVISION.test(protocolVersion))
    throw new UsageError(
      `invalid --protocol-version '${protocolVersion}': expected a revision like 2025-11-25`,
    );

  let timeoutMs = 30_000;
  const timeout = str('timeout');
  if (timeout !== undefined) {
    const s = /^\s*\d*\.?\d+\s*$/.test(timeout) ? Number(timeout) : Number.NaN;
    if (!(s > 0) || s > MAX_TIMEOUT_S)
      throw new UsageError(`invalid --timeout '${timeout}': expected seconds > 0 and <= ${MAX_TIMEOUT_S}`);
    timeoutMs = Math.max(1, Math.round(s * 1000));
  }

  const warnings: string[] = [];
  const tokenEnv = str('token-env');
  if (tokenEnv !== undefined && !ENV_NAME.test(tokenEnv))
    throw new UsageError(`invalid --token-env '${tokenEnv}': expected an environment variable name`);
  let token: string | null = null;
  const flagToken = str('token');
  if (flagToken) {
    token = flagToken;
    if (tokenEnv !== undefined) warnings.push(`--token is given, so --token-env ${tokenEnv} is not read`);
  } else {
    // A named variable has no fallback: an operator who names one wants exactly that one.
    const name = tokenEnv ?? DEFAULT_TOKEN_ENV;
    token = env[name] || null;
    if (tokenEnv !== undefined && token === null)
      warnings.push(`environment variable ${tokenEnv} is unset or empty; sending no token`);
  }
  return {
    kind: 'run',
    options: {
      endpoint,
      token,
      protocolVersion,
      timeoutMs,
      check: values.check === true,
      tls: resolveClientTls(values, env),
    },
    warnings,
  };
}

/** The endpoint of a base URL: trailing slashes dropped, `/mcp` appended; HTTP(S) only. */
export function endpointOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`invalid --url '${url}': expected an address like ${DEFAULT_URL}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`invalid --url '${url}': only http:// and https:// are supported`);
  // fetch refuses URLs with credentials, and a query or fragment would land after /mcp.
  if (parsed.username || parsed.password)
    throw new UsageError(`invalid --url '${url}': put the token in --token-env, not in the URL`);
  if (/[?#]/.test(url)) throw new UsageError(`invalid --url '${url}': no query or fragment allowed`);
  return `${url.replace(/\/+$/, '')}/mcp`;
}
