// A DAG task instance's own reports (spec 09 §4.3): its `onFailure.report` or `onSuccess.report`, sent
// after the instance's transition is recorded and never awaited by the graph. The context is a job
// run's, named `<dag>.<task>`, with the DAG run's id as `run_id` and the DAG's schedule (`""` for a
// manual-only DAG) as `schedule` (§4.4 item 1).
import type { DagConfig, DagTaskConfig } from '../../config/types.ts';
import type { RunResult } from '../../exec/types.ts';
import { announceReport } from '../../report/announce.ts';
import { dispatchReports, isConfigured } from '../../report/index.ts';
import type { ReportContext, ReportHook, ReportOptions } from '../../report/types.ts';
import { daemonHost } from '../../util/host.ts';
import { isoUtc } from '../../util/iso-utc.ts';
import type { Logger } from '../../util/log.ts';
import type { TaskResources } from './resources.ts';

/** What one finished instance reports: its verdict and, when it ran, its process's result. */
export interface InstanceOutcome {
  ok: boolean;
  failReason: string | null;
  exitCode: number | null;
  /** The launch attempt instant, epoch ms. */
  startedAtMs: number | null;
  /** Null for a launch error or a sensor's poke timeout (no process of this attempt to show). */
  result: RunResult | null;
  resources?: TaskResources | null;
}

export function taskReportContext(
  dag: DagConfig,
  task: DagTaskConfig,
  runId: string,
  outcome: InstanceOutcome,
): ReportContext {
  const res = outcome.result;
  const r = outcome.resources ?? null;
  return {
    name: task.launchName,
    success: outcome.ok,
    fail_reason: outcome.ok ? null : outcome.failReason,
    stdout: res?.stdout ?? null,
    stderr: res?.stderr ?? null,
    exit_code: outcome.exitCode,
    command: task.command ?? '',
    shell: task.shell,
    environment: res?.environment ?? null,
    cpu_seconds: r ? r.cpuSeconds : null,
    cpu_user_seconds: null,
    cpu_system_seconds: null,
    max_rss_bytes: r ? r.maxRssBytes : null,
    schedule: dag.scheduleText ?? '',
    host: daemonHost(),
    started_at: outcome.startedAtMs === null ? null : isoUtc(outcome.startedAtMs),
    run_id: runId,
  };
}

/** Sends the instance's report for its verdict, if that block has a reporter; logs, never throws. */
export function sendTaskReport(
  log: Logger,
  dag: DagConfig,
  task: DagTaskConfig,
  runId: string,
  outcome: InstanceOutcome,
  push?: ReportOptions['push'],
): Promise<void> {
  const hook: ReportHook = outcome.ok ? 'success' : 'failure';
  // Tests may build a task config by hand without the blocks; the loader always fills them.
  const block = outcome.ok ? task.onSuccess?.report : task.onFailure?.report;
  if (!isConfigured(block)) return Promise.resolve();
  const ctx = taskReportContext(dag, task, runId, outcome);
  return announceReport(log, hook, task.launchName, () =>
    dispatchReports(hook, block, ctx, { logger: log, push }),
  );
}
