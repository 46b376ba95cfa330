// The reporter side of a finished run (spec 02 §9): its template context, and one hook's
// dispatch, logged, never throwing into the reaper.
import type { JobConfig } from '../config/types.ts';
import type { RunResult } from '../exec/types.ts';
import type { ReportContext, ReportHook } from '../report/types.ts';
import { errorText } from '../util/errors.ts';
import type { Logger } from '../util/log.ts';

export function reportContext(job: JobConfig, result: RunResult, failReason: string | null): ReportContext {
  return {
    name: job.name,
    success: failReason === null,
    fail_reason: failReason,
    stdout: result.stdout,
    stderr: result.stderr,
    exit_code: result.exitCode,
    command: job.command,
    shell: job.shell,
    environment: result.environment,
    cpu_seconds: null,
    cpu_user_seconds: null,
    cpu_system_seconds: null,
    max_rss_bytes: null,
    schedule: job.scheduleText,
  };
}

export async function sendReport(
  deps: { log: Logger; report: (hook: ReportHook, job: JobConfig, ctx: ReportContext) => Promise<void> },
  hook: ReportHook,
  job: JobConfig,
  ctx: ReportContext,
): Promise<void> {
  const what = hook === 'failure' ? 'failure' : hook === 'permanentFailure' ? 'permanent failure' : 'success';
  deps.log.info(`Cron job ${job.name}: reporting ${what}`);
  try {
    await deps.report(hook, job, ctx);
  } catch (e) {
    deps.log.error(`Problem reporting job ${job.name} ${what}: ${errorText(e)}`);
  }
}
