// The child's environment (spec 02 §3.3). Pure.
import type { EnvVar } from '../config/types.ts';

/**
 * Daemon env < `env_file`/`environment` entries < injected run variables. Returns null when no
 * custom environment is needed (the child inherits the daemon's): the entries are empty, no
 * `env_file` was set and nothing is injected.
 */
export function buildEnvironment(
  entries: readonly EnvVar[],
  hasEnvFile: boolean,
  baseEnv: NodeJS.ProcessEnv,
  injected: Readonly<Record<string, string>> | undefined,
): Record<string, string> | null {
  const injectedEntries = Object.entries(injected ?? {});
  if (entries.length === 0 && !hasEnvFile && injectedEntries.length === 0) return null;
  const env = new Map<string, string>();
  for (const [key, value] of Object.entries(baseEnv)) {
    if (value !== undefined) env.set(key, String(value));
  }
  for (const { key, value } of entries) env.set(key, String(value));
  for (const [key, value] of injectedEntries) env.set(key, String(value));
  // fromEntries defines own properties, so a key like `__proto__` stays an ordinary variable.
  return Object.fromEntries(env);
}
