// A DAG task's template (spec 09 §4.1-§4.2): built-in job defaults, then the merged `defaults:` of the
// DAG's file (its includes' first), then the task's own keys. The launch keys and the two report blocks
// take effect; every other inherited job key is inert on a task yet still validated on the merged
// template, so a `defaults:` block that would break a job breaks the task the same way, under the
// task's own prefix.
import type { SourcePos } from './errors.ts';
import type { RawTask } from './file-schema.ts';
import { type BuildContext, checkJobOptions, checkLaunch } from './job.ts';
import { Locator } from './locate.ts';
import { mergeConfig } from './merge.ts';
import type { DagTaskConfig, EnvVar, JobOptions, RunAs } from './types.ts';

/** The DAG-node keys (spec 04 §2.2): never taken from `defaults:`, which has none of them anyway. */
export const TASK_NODE_DEFAULTS = {
  type: 'task' as const,
  command: null,
  dependsOn: [] as string[],
  triggerRule: 'all_success' as const,
  retries: 0,
  retryDelaySeconds: 0,
  expand: null,
  pokeIntervalSeconds: 30,
  pokeTimeoutSeconds: 3600,
  pokeJitterSeconds: 0,
  onReject: 'fail' as const,
};

/** What `defaults:` a DAG's tasks inherit: the merged options and the raw maps behind them. */
export interface TaskInheritance {
  defaults: JobOptions;
  /** The raw `defaults:` maps, nearest first, so an inherited key's error points at its line. */
  origins: object[];
}

/** Every job option (merged from `defaults:`) plus the task's node keys. */
export type TaskTemplate = JobOptions &
  Pick<
    DagTaskConfig,
    | 'id'
    | 'type'
    | 'command'
    | 'dependsOn'
    | 'triggerRule'
    | 'retries'
    | 'retryDelaySeconds'
    | 'expand'
    | 'pokeIntervalSeconds'
    | 'pokeTimeoutSeconds'
    | 'pokeJitterSeconds'
    | 'onReject'
  >;

export interface BuiltTask {
  template: TaskTemplate;
  /** Null when a launch or inert-key rule failed (already recorded). */
  launch: { environment: EnvVar[]; runAs: RunAs | null; workingDirectory: string | null } | null;
  loc: Locator;
}

/**
 * Merges and validates one task's template. Every issue it records carries the `dag '<d>': task '<t>': `
 * prefix (spec 09 §4.2), e.g. `dag 'd': task 't': Job d.t: saveLimit must be >= 0`.
 */
export function buildTaskTemplate(
  rawTask: RawTask,
  launchName: string,
  prefix: string,
  inherited: TaskInheritance,
  ctx: BuildContext,
  fallback: SourcePos,
): BuiltTask {
  const template = mergeConfig({ ...inherited.defaults, ...TASK_NODE_DEFAULTS }, rawTask) as TaskTemplate;
  const loc = new Locator([rawTask, ...inherited.origins], fallback);
  const before = ctx.issues.length;
  const launch = checkLaunch(launchName, template, loc, ctx, prefix);
  checkJobOptions(launchName, template, loc, ctx);
  const lead = `${prefix}: `;
  for (let i = before; i < ctx.issues.length; i++) {
    const issue = ctx.issues[i]!;
    if (!issue.message.startsWith(lead)) ctx.issues[i] = { ...issue, message: lead + issue.message };
  }
  return { template, launch: ctx.issues.length > before ? null : launch, loc };
}

/** The task config's report blocks: `onFailure` keeps only its report (attempts come from `retries`). */
export function taskReports(template: TaskTemplate): Pick<DagTaskConfig, 'onFailure' | 'onSuccess'> {
  return {
    onFailure: { report: template.onFailure.report },
    onSuccess: { report: template.onSuccess.report },
  };
}
