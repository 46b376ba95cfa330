// Report-time secret resolution (reporting spec §9.6): value -> fromFile -> fromEnvVar.
import { readFile } from 'node:fs/promises';
import type { SecretSource } from '../config/types.ts';
import type { ReportOptions } from './types.ts';

export type ResolvedSecret =
  /** No source set (or the chosen source yielded nothing). */
  | { kind: 'absent' }
  | { kind: 'value'; value: string }
  /** `fromEnvVar` was chosen but the variable is unset or empty: the reporter is skipped. */
  | { kind: 'missingEnv'; name: string };

function nonEmpty(s: string | null | undefined): s is string {
  return typeof s === 'string' && s !== '';
}

/** True when any source is set (the reporter counts as configured). */
export function hasSecretSource(src: SecretSource | null | undefined): boolean {
  return !!src && (nonEmpty(src.value) || nonEmpty(src.fromFile) || nonEmpty(src.fromEnvVar));
}

/**
 * Resolves a secret block now. The first non-empty source wins; a file is read as UTF-8
 * text and trimmed (a read error propagates: it is a reporter error).
 */
export async function resolveSecret(
  src: SecretSource | null | undefined,
  env: NodeJS.ProcessEnv,
): Promise<ResolvedSecret> {
  if (!src) return { kind: 'absent' };
  if (nonEmpty(src.value)) return { kind: 'value', value: src.value };
  if (nonEmpty(src.fromFile)) {
    const text = (await readFile(src.fromFile, 'utf8')).trim();
    return text === '' ? { kind: 'absent' } : { kind: 'value', value: text };
  }
  if (nonEmpty(src.fromEnvVar)) {
    const v = env[src.fromEnvVar];
    return nonEmpty(v) ? { kind: 'value', value: v } : { kind: 'missingEnv', name: src.fromEnvVar };
  }
  return { kind: 'absent' };
}

/**
 * The secret a reporter needs before it can send (sentry's dsn, the webhook url), or null when it must not send:
 * an unset `fromEnvVar` variable is logged as an error naming `what`, an absent secret is silent.
 */
export async function requiredSecret(
  src: SecretSource | null | undefined,
  opts: ReportOptions,
  what: string,
): Promise<string | null> {
  const secret = await resolveSecret(src, opts.env ?? process.env);
  if (secret.kind === 'missingEnv') {
    opts.logger.error(`${what} env var '${secret.name}' is not set; not reporting`);
    return null;
  }
  return secret.kind === 'value' ? secret.value : null;
}
