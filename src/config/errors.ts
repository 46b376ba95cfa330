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
