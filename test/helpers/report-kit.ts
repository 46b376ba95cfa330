// Small helpers for tests of reporting and of its callers: a recording logger and a
// report context with sensible values. Not used by the daemon itself.
import type { ReportContext, ReportLogger } from '../../src/report/types.ts';

export interface LogEntry {
  level: 'debug' | 'info' | 'warning' | 'error';
  message: string;
}

/** A ReportLogger that keeps every line. */
export class RecordingLogger implements ReportLogger {
  readonly entries: LogEntry[] = [];
  debug(message: string): void {
    this.entries.push({ level: 'debug', message });
  }
  info(message: string): void {
    this.entries.push({ level: 'info', message });
  }
  warning(message: string): void {
    this.entries.push({ level: 'warning', message });
  }
  error(message: string): void {
    this.entries.push({ level: 'error', message });
  }
  /** Messages at one level. */
  at(level: LogEntry['level']): string[] {
    return this.entries.filter((e) => e.level === level).map((e) => e.message);
  }
  /** Every message, all levels. */
  all(): string[] {
    return this.entries.map((e) => e.message);
  }
}

/** A report context for a successful run of job `j`, with `overrides` applied. */
export function reportContext(overrides: Partial<ReportContext> = {}): ReportContext {
  return {
    name: 'j',
    success: true,
    fail_reason: null,
    stdout: null,
    stderr: null,
    exit_code: 0,
    command: 'echo hi',
    shell: '/bin/sh',
    environment: { HOSTNAME: 'host1', PATH: '/usr/bin:/bin' },
    cpu_seconds: null,
    cpu_user_seconds: null,
    cpu_system_seconds: null,
    max_rss_bytes: null,
    schedule: '*/5 * * * *',
    ...overrides,
  };
}
