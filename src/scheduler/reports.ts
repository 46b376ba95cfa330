// The reporter side of a finished run (spec 02 §9): its template context, and one hook's
// dispatch, logged, never throwing into the reaper.
import type { JobConfig } from '../config/types.ts';
import type { RunResult } from '../exec/types.ts';
import { announceReport } from '../report/announce.ts';
import type { ReportContext, ReportHook } from '../report/types.ts';
import { daemonHost } from '../util/host.ts';
import { isoUtc } from '../util/iso-utc.ts';
import type { Logger } from '../util/log.ts';

/** `runId`: the id the run got as `CRONSTABLE_RUN_ID` (the ledger's id), minted for every run. */
export function reportContext(
  job: JobConfig,
  result: RunResult,
  failReason: string | null,
  runId: string,
): ReportContext {
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
    // Spec 09 §6: the launch attempt instant (kept for a launch that failed), on every node's HOSTNAME.
    host: daemonHost(),
    started_at: isoUtc(result.startedAt),
    run_id: runId,
  };
}

export async function sendReport(
  deps: { log: Logger; report: (hook: ReportHook, job: JobConfig, ctx: ReportContext) => Promise<void> },
  hook: ReportHook,
  job: JobConfig,
  ctx: ReportContext,
): Promise<void> {
  await announceReport(deps.log, hook, job.name, () => deps.report(hook, job, ctx));
}
