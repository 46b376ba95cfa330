// Run-scoped secrets (spec 03 §6.6): resolved at every launch, held only in memory.
import { readFile } from 'node:fs/promises';
import type { JobSecret } from '../config/types.ts';
import { errorText } from '../util/errors.ts';

export interface SecretWarning {
  name: string;
  reason: string;
}

function looksBinary(buf: Buffer): boolean {
  if (buf.includes(0)) return true;
  // Invalid UTF-8 round-trips with replacement characters.
  return Buffer.compare(Buffer.from(buf.toString('utf8'), 'utf8'), buf) !== 0;
}

/**
 * Resolves `secrets:` for one launch: `value` → `fromFile` (text, surrounding whitespace
 * stripped; unreadable or binary → unresolvable) → `fromEnvVar` (the daemon's environment).
 * An empty result is unresolvable. Unresolvable secrets are left out and reported through
 * `warnings` (the job then gets 404 / exit 4); a launch never fails because of them.
 * Duplicate names: the last one wins.
 */
export async function resolveRunSecrets(
  specs: readonly JobSecret[],
  env: NodeJS.ProcessEnv,
  warnings: SecretWarning[] = [],
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const spec of specs) {
    let value: string | null = null;
    let reason = 'no source is set';
    if (spec.value) value = spec.value;
    else if (spec.fromFile) {
      try {
        const buf = await readFile(spec.fromFile);
        if (looksBinary(buf)) reason = `file ${spec.fromFile} is not text`;
        else {
          value = buf.toString('utf8').trim();
          reason = `file ${spec.fromFile} is empty`;
        }
      } catch (e) {
        reason = `cannot read ${spec.fromFile}: ${errorText(e)}`;
      }
    } else if (spec.fromEnvVar) {
      value = env[spec.fromEnvVar] ?? null;
      reason = `environment variable ${spec.fromEnvVar} is ${value === null ? 'not set' : 'empty'}`;
    }
    if (value) out[spec.name] = value;
    else {
      delete out[spec.name];
      warnings.push({ name: spec.name, reason });
    }
  }
  return out;
}
