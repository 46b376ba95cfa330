// The daemon binary's admin verbs (`state`, `slots`) take the daemon's `-c CONF` before the verb:
// one splitter for all of them, so `-c` means the same wherever it stands; and one config load.
import { ConfigError } from '../config/errors.ts';
import { loadConfig } from '../config/load.ts';
import type { LoadedConfig } from '../config/types.ts';

/** Splits `[-c CONF] VERB ...`; null when argv is not a call of `verb` (anything else before it). */
export function verbArgs(
  argv: string[],
  verb: string,
): { config: string | undefined; rest: string[] } | null {
  const at = argv.indexOf(verb);
  if (at < 0) return null;
  const before = argv.slice(0, at);
  let config: string | undefined;
  for (let i = 0; i < before.length; i++) {
    const a = before[i]!;
    if (a === '-c' || a === '--config') config = before[++i];
    else if (a.startsWith('--config=')) config = a.slice('--config='.length);
    else return null;
  }
  return { config, rest: argv.slice(at + 1) };
}

/** The config at `path`, or the text of its error (file, line, column and key) for the verb to print. */
export function loadVerbConfig(path: string): LoadedConfig | { error: string } {
  try {
    return loadConfig(path);
  } catch (e) {
    if (e instanceof ConfigError) return { error: e.message };
    throw e;
  }
}
