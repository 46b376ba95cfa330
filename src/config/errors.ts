import { CronstableError } from '../util/errors.ts';

/** Where a value came from in a config file (1-based line and column). */
export interface SourcePos {
  file: string;
  line: number;
  col: number;
}

/** One problem found while loading configuration. */
export interface ConfigIssue {
  message: string;
  file?: string;
  line?: number;
  col?: number;
  /** Dotted key path inside the file, e.g. `jobs[3].onFailure.retry.maximumDelay`. */
  path?: string;
}

export function formatIssue(issue: ConfigIssue): string {
  let where = '';
  if (issue.file) {
    where = issue.file;
    if (issue.line !== undefined) where += `:${issue.line}:${issue.col ?? 1}`;
    where += ': ';
  }
  const path = issue.path ? `${issue.path}: ` : '';
  return `${where}${path}${issue.message}`;
}

/** Every issue of one load, reported together. */
export class ConfigError extends CronstableError {
  constructor(readonly issues: ConfigIssue[]) {
    super('config', issues.map(formatIssue).join('\n---\n'));
    this.name = 'ConfigError';
  }
}

export function issueAt(pos: SourcePos | undefined, path: string | undefined, message: string): ConfigIssue {
  return pos ? { file: pos.file, line: pos.line, col: pos.col, path, message } : { path, message };
}

/** Longest excerpt of a config file an error message quotes. */
export const EXCERPT_MAX = 120;

const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|\p{Surrogate}/gu;
const NAMED_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * File text as an error message may quote it: control characters, line separators and unpaired
 * surrogates escaped (so the excerpt is one line and shows what is really there), then cut to
 * EXCERPT_MAX characters. A value that is a whole block scalar or a megabyte line stays readable.
 */
export function excerpt(text: string): string {
  const escaped = text.replace(UNPRINTABLE, (c) => {
    const named = NAMED_ESCAPES[c];
    if (named) return named;
    const code = c.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return escaped.length <= EXCERPT_MAX ? escaped : `${escaped.slice(0, EXCERPT_MAX - 3)}...`;
}

/** `'<excerpt>'`. */
export function quote(text: string): string {
  return `'${excerpt(text)}'`;
}
