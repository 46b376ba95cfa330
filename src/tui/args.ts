// `cronstable tui` flags (spec 08 §1.1). Pure: argv and the environment in, options or a usage error out.
import { parseArgs } from 'node:util';
import {
  CLIENT_TLS_FLAGS,
  CLIENT_TLS_USAGE,
  type ClientTlsOptions,
  type ClientTlsSpec,
  resolveClientTls,
} from '../http/client-tls.ts';
import { errorText } from '../util/errors.ts';
import { THEME_NAMES } from './text/theme.ts';

export const DEFAULT_URL = 'http://127.0.0.1:8080';
export const DEFAULT_TOKEN_ENV = 'CRONSTABLE_WEB_TOKEN';

export const TUI_USAGE = `usage: cronstable tui [--url URL] [--token TOKEN] [--token-env VAR] [--theme NAME] [--tv]
                      [--job NAME] [--poll SECONDS] [--boot | --no-boot] [--ascii]
                      [--cacert PATH] [--client-cert PATH --client-key PATH] [--insecure]

The terminal dashboard: a running daemon's web API, in an SSH session.

options:
  --url URL          the daemon's web listener (default: ${DEFAULT_URL})
  --token TOKEN      bearer token for the web API
  --token-env VAR    environment variable holding the token (default: ${DEFAULT_TOKEN_ENV})
  --theme NAME       ${THEME_NAMES.join(', ')} (saved)
  --tv               start on the wallboard
  --job NAME         open NAME's drawer after the first load
  --poll SECONDS     refresh interval, 0 = paused, else 0.5 to 3600 (default 3)
  --boot, --no-boot  force or skip the boot self-test
  --ascii            ASCII glyphs and borders
${CLIENT_TLS_USAGE}
  -h, --help         show this help
`;

export interface TuiOptions {
  url: string;
  token: string | null;
  theme: string | null;
  tv: boolean;
  job: string | null;
  /** null = the saved preference; 0 = paused */
  pollMs: number | null;
  /** null = the preference decides */
  boot: boolean | null;
  ascii: boolean;
  /** Client TLS flags and variables (spec 10 §3.3), or null for the default transport. */
  tls: ClientTlsSpec | null;
  /** The files `tls` names, loaded by the command once a terminal is known to be there. */
  tlsOptions?: ClientTlsOptions | null;
}

export class TuiArgError extends Error {}

export function parseTuiArgs(argv: readonly string[], env: NodeJS.ProcessEnv): TuiOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        url: { type: 'string' },
        token: { type: 'string' },
        'token-env': { type: 'string' },
        theme: { type: 'string' },
        tv: { type: 'boolean' },
        job: { type: 'string' },
        poll: { type: 'string' },
        boot: { type: 'boolean' },
        'no-boot': { type: 'boolean' },
        ascii: { type: 'boolean' },
        ...CLIENT_TLS_FLAGS,
      },
    }));
  } catch (e) {
    throw new TuiArgError(errorText(e));
  }
  const url = String(values.url ?? DEFAULT_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/\s?#]+/.test(url))
    throw new TuiArgError(`--url: expected http(s)://host[:port], got '${url}'`);

  const theme = values.theme === undefined ? null : String(values.theme);
  if (theme !== null && !THEME_NAMES.includes(theme))
    throw new TuiArgError(`--theme: invalid choice '${theme}' (choose from ${THEME_NAMES.join(', ')})`);

  let pollMs: number | null = null;
  if (values.poll !== undefined) {
    const text = String(values.poll).trim();
    const s = /^\d+(\.\d+)?$|^\.\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!(s === 0 || (s >= 0.5 && s <= 3600)))
      throw new TuiArgError(`--poll: expected 0 (paused) or 0.5 to 3600 seconds, got '${values.poll}'`);
    pollMs = Math.round(s * 1000);
  }

  const tokenVar = String(values['token-env'] ?? '') || DEFAULT_TOKEN_ENV;
  const fromFlag = values.token === undefined ? '' : String(values.token);
  const token = fromFlag !== '' ? fromFlag : env[tokenVar] || null;

  const boot = values['no-boot'] ? false : values.boot ? true : null;
  return {
    url,
    token,
    theme,
    tv: values.tv === true,
    job: values.job === undefined ? null : String(values.job),
    pollMs,
    boot,
    ascii: values.ascii === true,
    tls: resolveClientTls(values, env),
  };
}
