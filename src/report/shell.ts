// Shell reporter (reporting spec §9.9): runs a command with the run's facts in its env.
import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import type { ReportBlock } from '../config/types.ts';
import { pyFloatRepr } from '../util/pyjson.ts';
import { runContext } from './run-context.ts';
import { slaEnv } from './sla-vars.ts';
import type { ReportContext, ReportOptions } from './types.ts';

export type ShellConfig = NonNullable<ReportBlock['shell']>;

export const SHELL_REPORTER_MAX_CHARS = 16384;
export const DEFAULT_SHELL_TIMEOUT_S = 60;
/** After the timeout kill, how long to wait for the child to be reaped. */
const REAP_AFTER_KILL_MS = 10_000;

/** Configured when a command is set. */
export function isShellConfigured(cfg: ShellConfig | null | undefined): cfg is ShellConfig {
  if (!cfg) return false;
  const c = cfg.command;
  return Array.isArray(c) ? c.length > 0 : typeof c === 'string' && c !== '';
}

/** The first `max` code points of `text`, and whether it was cut. */
export function truncateCodePoints(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let units = 0;
  let points = 0;
  while (units < text.length && points < max) {
    const c = text.charCodeAt(units);
    units += c >= 0xd800 && c <= 0xdbff && units + 1 < text.length ? 2 : 1;
    points++;
  }
  return units >= text.length ? { text, truncated: false } : { text: text.slice(0, units), truncated: true };
}

/** The CRONSTABLE_* variables of spec §9.9 for one run. */
export function shellReporterEnv(ctx: ReportContext): Record<string, string> {
  const out = truncateCodePoints(ctx.stdout ?? '', SHELL_REPORTER_MAX_CHARS);
  const err = truncateCodePoints(ctx.stderr ?? '', SHELL_REPORTER_MAX_CHARS);
  return {
    CRONSTABLE_FAIL_REASON: ctx.fail_reason ?? '',
    CRONSTABLE_FAILED: ctx.success ? '0' : '1',
    CRONSTABLE_JOB_NAME: ctx.name,
    CRONSTABLE_JOB_COMMAND: Array.isArray(ctx.command) ? ctx.command.join(' ') : ctx.command,
    CRONSTABLE_JOB_SCHEDULE: ctx.schedule,
    CRONSTABLE_RETCODE: ctx.exit_code === null ? '' : String(ctx.exit_code),
    CRONSTABLE_STDOUT: out.text,
    CRONSTABLE_STDERR: err.text,
    CRONSTABLE_STDOUT_TRUNCATED: out.truncated ? '1' : '0',
    CRONSTABLE_STDERR_TRUNCATED: err.truncated ? '1' : '0',
    CRONSTABLE_CPU_SECONDS: ctx.cpu_seconds === null ? '' : pyFloatRepr(ctx.cpu_seconds),
    CRONSTABLE_MAX_RSS_BYTES: ctx.max_rss_bytes === null ? '' : String(Math.round(ctx.max_rss_bytes)),
    ...runContextEnv(ctx),
    ...slaEnv(ctx),
    ...ctx.extraEnv,
  };
}

/** Spec 09 §6: always exported, `""` for a null value. */
function runContextEnv(ctx: ReportContext): Record<string, string> {
  const run = runContext(ctx);
  return {
    CRONSTABLE_HOST: run.host,
    CRONSTABLE_STARTED_AT: run.started_at ?? '',
    CRONSTABLE_RUN_ID: run.run_id ?? '',
  };
}

/** argv for the three command forms of spec §3.1. */
export function shellReporterArgv(command: string | string[], shell: string | null | undefined): string[] {
  if (Array.isArray(command)) return command;
  const sh = shell ?? (process.platform === 'win32' ? '' : '/bin/sh');
  if (sh !== '') return [sh, '-c', command];
  if (process.platform === 'win32') return [process.env.ComSpec || 'cmd.exe', '/d', '/s', '/c', command];
  return ['/bin/sh', '-c', command];
}

function cleanEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string') out[k] = v;
  return out;
}

type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** Runs the shell reporter; exit and timeout problems are logged, a launch error is thrown. */
export async function runShellReporter(
  cfg: ShellConfig | null | undefined,
  ctx: ReportContext,
  opts: ReportOptions,
): Promise<void> {
  if (!isShellConfigured(cfg)) return;
  const { logger } = opts;
  const [file, ...args] = shellReporterArgv(cfg.command, cfg.shell);
  const timeout = cfg.timeout && cfg.timeout > 0 ? cfg.timeout : DEFAULT_SHELL_TIMEOUT_S;
  const env = { ...cleanEnv(opts.env ?? process.env), ...shellReporterEnv(ctx) };

  const child = spawn(file!, args, { env, stdio: 'inherit', detached: process.platform !== 'win32' });
  const exited = new Promise<Exit>((resolve, reject) => {
    child.once('error', (err) => {
      // A spawn failure emits `error` without `exit`; an error after exit (a failed kill) is moot.
      if (child.pid === undefined) reject(err);
    });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });

  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.ceil(timeout * 1000));
  });
  let result: Exit | 'timeout';
  try {
    result = await Promise.race([exited, timedOut]);
  } finally {
    clearTimeout(timer);
  }

  if (result === 'timeout') {
    logger.error(`Shell reporter of job ${ctx.name} did not finish within ${timeout} seconds; killing it`);
    killGroup(child.pid, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let reapTimer: NodeJS.Timeout | undefined;
    await Promise.race([
      exited.catch(() => undefined),
      new Promise((resolve) => {
        reapTimer = setTimeout(resolve, REAP_AFTER_KILL_MS);
      }),
    ]);
    clearTimeout(reapTimer);
    return;
  }
  const code = result.code ?? (result.signal ? -signalNumber(result.signal) : 0);
  if (code !== 0) {
    logger.error(`Error executing shell reporter of job ${ctx.name} with return code ${code}`);
  } else {
    logger.debug(`shell reporter of job ${ctx.name} finished`);
  }
}

function signalNumber(signal: NodeJS.Signals): number {
  return (osConstants.signals as Record<string, number>)[signal] ?? 0;
}

/** SIGKILLs the process group led by `pid`; falls back to the child alone. */
function killGroup(pid: number | undefined, fallback: () => void): void {
  if (pid !== undefined && process.platform !== 'win32') {
    try {
      process.kill(-pid, 'SIGKILL');
      return;
    } catch {
      // group gone or not ours: fall back to the child itself
    }
  }
  try {
    fallback();
  } catch {
    // already gone
  }
}
