// DAG validation (spec 04 §2): keys, task graph, expand rules, launch names.
import { DEFAULT_DST_POLICY, type DstPolicy } from '../schedule/dst.ts';
import { builtinJobOptions } from './builtins.ts';
import { quote, type SourcePos } from './errors.ts';
import type { RawDag } from './file-schema.ts';
import { type BuildContext, parseScheduleFor } from './job.ts';
import { Locator } from './locate.ts';
import { nameProblem } from './names.ts';
import { buildTaskTemplate, type TaskInheritance, taskReports } from './task-template.ts';
import type { CommandSettings, DagConfig, DagTaskConfig } from './types.ts';
import { locationOf } from './validators.ts';

/** Kahn's algorithm over the deduplicated edges; returns the ids left in a cycle, sorted. */
export function cycleMembers(tasks: { id: string; dependsOn: string[] }[]): string[] {
  const indegree = new Map<string, number>();
  const children = new Map<string, string[]>();
  for (const t of tasks) indegree.set(t.id, 0);
  for (const t of tasks) {
    for (const dep of new Set(t.dependsOn)) {
      if (!indegree.has(dep) || dep === t.id) continue;
      indegree.set(t.id, (indegree.get(t.id) ?? 0) + 1);
      children.set(dep, [...(children.get(dep) ?? []), t.id]);
    }
  }
  const queue = [...indegree].filter(([, d]) => d === 0).map(([id]) => id);
  while (queue.length > 0) {
    const id = queue.pop()!;
    for (const c of children.get(id) ?? []) {
      const d = indegree.get(c)! - 1;
      indegree.set(c, d);
      if (d === 0) queue.push(c);
    }
  }
  return [...indegree]
    .filter(([, d]) => d > 0)
    .map(([id]) => id)
    .sort();
}

/** The launch keys a task keeps from its merged template (spec 09 §4.2: the effective ones). */
const LAUNCH_KEYS = [
  'shell',
  'environment',
  'env_file',
  'captureStdout',
  'captureStderr',
  'saveLimit',
  'maxLineLength',
  'streamPrefix',
  'failsWhen',
  'executionTimeout',
  'killTimeout',
  'user',
  'group',
  'statsd',
  'monitorResources',
  'secrets',
  'stateAllowedScopes',
  'workingDirectory',
  'priority',
] as const satisfies readonly (keyof CommandSettings)[];

/** Built-ins only: what a DAG outside any file's `defaults:` (tests, tools) inherits. */
export function builtinInheritance(): TaskInheritance {
  return { defaults: builtinJobOptions(), origins: [] };
}

export function buildDag(
  raw: RawDag,
  ctx: BuildContext,
  fallback: SourcePos,
  inherited: TaskInheritance = builtinInheritance(),
): DagConfig | null {
  const dagLoc = new Locator([raw], fallback);
  const prefix = `dag ${quote(raw.name)}`;
  const before = ctx.issues.length;
  const problem = (keys: string[], text: string, loc: Locator = dagLoc) =>
    ctx.issues.push(loc.issue(keys, text));

  const badName = nameProblem(raw.name);
  if (badName) problem(['name'], `${prefix}: the name ${badName}`);
  else if (raw.name.includes('/')) problem(['name'], `${prefix}: a DAG name may not contain '/'`);
  const retainRuns = raw.retainRuns ?? 50;
  if (retainRuns < 1) problem(['retainRuns'], `${prefix}: retainRuns must be >= 1`);
  if ((raw.catchupJitterSeconds ?? 0) < 0)
    problem(['catchupJitterSeconds'], `${prefix}: catchupJitterSeconds must be >= 0`);
  if (raw.startingDeadlineSeconds != null && !(raw.startingDeadlineSeconds > 0))
    problem(['startingDeadlineSeconds'], `${prefix}: startingDeadlineSeconds must be > 0`);
  if (raw.tasks.length === 0) problem(['tasks'], `${prefix}: needs at least one task`);

  let schedule: ReturnType<typeof parseScheduleFor> = null;
  const timezone = raw.timezone ?? null;
  const utc = raw.utc ?? true;
  const dst: DstPolicy = {
    repeated: raw.dst?.repeated ?? DEFAULT_DST_POLICY.repeated,
    skipped: raw.dst?.skipped ?? DEFAULT_DST_POLICY.skipped,
  };
  if (raw.schedule != null) {
    if (typeof raw.schedule === 'string' && raw.schedule.trim() === '@reboot') {
      problem(
        ['schedule'],
        `${prefix}: DAG schedules must be cron expressions; @reboot is not supported for dags`,
      );
    } else {
      schedule = parseScheduleFor(
        raw.schedule,
        {
          timezone,
          utc,
          hashKey: `dag:${raw.name}`,
          allowReboot: false,
          label: 'job',
          dst,
        },
        dagLoc,
        ctx,
      );
    }
  }

  const ids = new Set<string>();
  const tasks: DagTaskConfig[] = [];
  raw.tasks.forEach((rawTask) => {
    const tp = `${prefix}: task ${quote(rawTask.id)}`;
    const launchName = `${raw.name}.${rawTask.id}`;
    const pos = locationOf(rawTask)?.pos ?? fallback;
    const { template, launch, loc } = buildTaskTemplate(rawTask, launchName, tp, inherited, ctx, pos);
    const badId = nameProblem(template.id);
    if (badId) problem(['id'], `${prefix}: task id ${quote(template.id)} ${badId}`, loc);
    else if (template.id === '' || /[#/]/.test(template.id))
      problem(
        ['id'],
        `${prefix}: task id ${quote(template.id)} must be non-empty and may not contain '#' or '/'`,
        loc,
      );
    else if (ids.has(template.id)) problem(['id'], `${prefix}: duplicate task id ${quote(template.id)}`, loc);
    ids.add(template.id);
    if (template.type !== 'approval' && (template.command === null || template.command.length === 0))
      problem(['command'], `${tp}: task needs a command`, loc);
    if (template.retries < 0)
      problem(['retries'], `${tp}: retries must be >= 0 (retry-forever is not supported for DAG tasks)`, loc);
    const launchKeys = Object.fromEntries(LAUNCH_KEYS.map((k) => [k, template[k]])) as Pick<
      CommandSettings,
      (typeof LAUNCH_KEYS)[number]
    >;
    tasks.push({
      ...launchKeys,
      ...taskReports(template),
      id: template.id,
      type: template.type,
      command: template.command,
      dependsOn: template.dependsOn,
      triggerRule: template.triggerRule,
      retries: template.retries,
      expand: template.expand,
      pokeTimeoutSeconds: template.pokeTimeoutSeconds,
      pokeJitterSeconds: template.pokeJitterSeconds,
      onReject: template.onReject,
      retryDelaySeconds: Math.max(0, template.retryDelaySeconds),
      pokeIntervalSeconds: Math.max(0, template.pokeIntervalSeconds),
      launchName,
      effectiveEnvironment: launch?.environment ?? template.environment,
      runAs: launch?.runAs ?? null,
      workingDirectory: launch?.workingDirectory ?? null,
    });
  });

  const byId = new Map(tasks.map((t) => [t.id, t]));
  raw.tasks.forEach((rawTask) => {
    const t = byId.get(rawTask.id)!;
    const loc = new Locator([rawTask], fallback);
    const tp = `${prefix}: task ${quote(t.id)}`;
    for (const dep of t.dependsOn) {
      if (dep === t.id) problem(['dependsOn'], `${tp}: cannot depend on itself`, loc);
      else if (!byId.has(dep)) problem(['dependsOn'], `${tp}: depends on unknown task ${quote(dep)}`, loc);
    }
    if (t.expand) {
      const from = byId.get(t.expand.fromTask);
      if (t.type !== 'task') problem(['expand'], `${tp}: only a plain task can be mapped (expand)`, loc);
      else if (!from || !t.dependsOn.includes(t.expand.fromTask) || from.expand)
        problem(
          ['expand', 'fromTask'],
          `${tp}: expand.fromTask ${quote(t.expand.fromTask)} must be a direct, non-mapped dependency (chained mapping is not supported)`,
          loc,
        );
    }
  });
  const cycle = cycleMembers(tasks);
  if (cycle.length > 0)
    problem(['tasks'], `${prefix}: the dependency graph has a cycle involving: ${cycle.join(', ')}`);

  if (ctx.issues.length > before) return null;
  return {
    name: raw.name,
    tasks,
    schedule: raw.schedule ?? null,
    scheduleText: schedule?.text ?? null,
    cron: schedule?.cron ?? null,
    timezone,
    utc,
    frame: schedule?.frame ?? { kind: 'utc' },
    findings: schedule?.findings ?? [],
    onMissed: raw.onMissed ?? 'skip',
    startingDeadlineSeconds: raw.startingDeadlineSeconds ?? null,
    catchupJitterSeconds: raw.catchupJitterSeconds ?? 0,
    dst,
    clusterPolicy: raw.clusterPolicy ?? 'Leader',
    enabled: raw.enabled ?? true,
    retainRuns,
    source: locationOf(raw)?.pos ?? fallback,
  };
}
