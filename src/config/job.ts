// Builds one job from its merged keys and applies the load-time rules of spec 01 §3,
// in the reference's order: schedule, timezone, lint, secrets, env_file, user/group, ranges.
import {
  type CronSchedule,
  type DstPolicy,
  type Frame,
  isKnownTimezone,
  isReboot,
  lintSchedule,
  parseCron,
  renderScheduleObject,
  resolveFrame,
  type ScheduleFinding,
} from '../schedule/index.ts';
import { errorText } from '../util/errors.ts';
import { EnvFileError, loadEnvFile, overlayEnvironment } from './envfile.ts';
import { type ConfigIssue, excerpt, quote } from './errors.ts';
import { enabledEventlogs, eventlogSourceProblem } from './eventlog.ts';
import type { ScheduleObject } from './file-schema.ts';
import { type IdentityDb, resolveRunAs } from './identity.ts';
import { launchPlaceOf } from './launch-place-check.ts';
import type { Locator } from './locate.ts';
import { slaProblems } from './sla.ts';
import { scheduleFieldProblems } from './tighten.ts';
import type { CommandSettings, EnvVar, JobOptions, LoadWarning, RunAs } from './types.ts';

export interface BuildContext {
  cwd: string;
  nowMs: number;
  identity: () => IdentityDb;
  euid: number | null;
  platform: string;
  issues: ConfigIssue[];
  warnings: LoadWarning[];
  files: Set<string>;
}

export function scheduleTextOf(schedule: string | ScheduleObject): string {
  if (typeof schedule === 'string') return schedule.trim().split(/\s+/).join(' ');
  return renderScheduleObject(schedule);
}

export interface ParsedSchedule {
  text: string;
  cron: CronSchedule | null;
  reboot: boolean;
  frame: Frame;
  findings: ScheduleFinding[];
}

/** Schedule + timezone + lint, shared by jobs and DAGs. Returns null after recording an issue. */
export function parseScheduleFor(
  schedule: string | ScheduleObject,
  opts: {
    timezone: string | null;
    utc: boolean;
    hashKey: string;
    allowReboot: boolean;
    label: string;
    dst?: DstPolicy;
  },
  loc: Locator,
  ctx: BuildContext,
): ParsedSchedule | null {
  if (typeof schedule === 'object') {
    const blanks = scheduleFieldProblems(schedule);
    for (const b of blanks) ctx.issues.push(loc.issue(['schedule', b.key], b.message));
    if (blanks.length > 0) return null;
  }
  const text = scheduleTextOf(schedule);
  const reboot = typeof schedule === 'string' && isReboot(schedule);
  let cron: CronSchedule | null = null;
  if (!reboot) {
    try {
      cron = parseCron(text, { hashKey: opts.hashKey });
    } catch (e) {
      ctx.issues.push(loc.issue(['schedule'], `invalid schedule ${quote(text)}: ${errorText(e)}`));
      return null;
    }
  } else if (!opts.allowReboot) {
    return null;
  }
  if (opts.timezone !== null && !isKnownTimezone(opts.timezone)) {
    ctx.issues.push(loc.issue(['timezone'], `unknown timezone: ${excerpt(opts.timezone)}`));
    return null;
  }
  const frame = resolveFrame({ timezone: opts.timezone, utc: opts.utc });
  const findings = cron ? lintSchedule(cron, frame, ctx.nowMs, opts.dst) : [];
  for (const f of findings) {
    ctx.warnings.push({
      level: f.level === 'warning' ? 'warning' : 'info',
      logger: 'cronstable.config',
      message: `${opts.label} '${opts.hashKey}': schedule '${text}': [${f.code}] ${f.message}`,
    });
  }
  return { text, cron, reboot, frame, findings };
}

/**
 * `streamPrefix` follows Python str.format: only `{job_name}`, `{stream_name}` and doubled braces.
 * The reference crashes at run time on anything else; we reject it at load.
 */
export function checkStreamPrefix(prefix: string): string | null {
  const rest = prefix.replace(/\{\{|\}\}|\{job_name\}|\{stream_name\}/g, '');
  const bad = /\{[^}]*\}?|\}/.exec(rest);
  return bad
    ? `streamPrefix ${quote(prefix)} has an unknown placeholder ${quote(bad[0])}; only {job_name} and {stream_name} are allowed (write {{ and }} for literal braces)`
    : null;
}

/** Secrets, env_file and user/group: the launch settings jobs and DAG tasks share. */
export function checkLaunch(
  owner: string,
  opts: CommandSettings,
  loc: Locator,
  ctx: BuildContext,
  secretPrefix: string,
): { environment: EnvVar[]; runAs: RunAs | null; workingDirectory: string | null } | null {
  let ok = true;
  opts.secrets.forEach((s, i) => {
    if (!s.value && !s.fromFile && !s.fromEnvVar) {
      ctx.issues.push(
        loc.issue(
          ['secrets', String(i)],
          `${secretPrefix}: secret ${quote(s.name)} needs a value, fromFile or fromEnvVar source`,
        ),
      );
      ok = false;
    }
  });
  let environment = opts.environment;
  if (opts.env_file) {
    try {
      const { file, vars } = loadEnvFile(opts.env_file, ctx.cwd);
      ctx.files.add(file);
      environment = overlayEnvironment(vars, opts.environment);
    } catch (e) {
      if (!(e instanceof EnvFileError)) throw e;
      ctx.issues.push(loc.issue(['env_file'], e.message));
      ok = false;
    }
  }
  let runAs: RunAs | null = null;
  try {
    runAs = resolveRunAs(owner, opts.user, opts.group, {
      db: opts.user !== null || opts.group !== null ? ctx.identity() : { passwd: [], groups: [] },
      euid: ctx.euid,
      platform: ctx.platform,
    });
  } catch (e) {
    ctx.issues.push(loc.issue([opts.user !== null ? 'user' : 'group'], errorText(e)));
    ok = false;
  }
  const prefixError = checkStreamPrefix(opts.streamPrefix);
  if (prefixError) {
    ctx.issues.push(loc.issue(['streamPrefix'], `Job ${excerpt(owner)}: ${prefixError}`));
    ok = false;
  }
  const rangeChecks: [boolean, string[], string][] = [
    [opts.saveLimit < 0, ['saveLimit'], 'saveLimit must be >= 0'],
    [opts.maxLineLength <= 0, ['maxLineLength'], 'maxLineLength must be > 0'],
    [opts.killTimeout < 0, ['killTimeout'], 'killTimeout must be >= 0'],
  ];
  const mon = opts.monitorResources;
  if (typeof mon === 'object') {
    if (mon.interval !== undefined && !(mon.interval >= 0.1))
      rangeChecks.push([
        true,
        ['monitorResources', 'interval'],
        'monitorResources.interval must be >= 0.1 (seconds)',
      ]);
    if (mon.history !== undefined && !(mon.history >= 0 && mon.history <= 2000))
      rangeChecks.push([
        true,
        ['monitorResources', 'history'],
        'monitorResources.history must be between 0 and 2000',
      ]);
  }
  if (opts.executionTimeout !== null && !(opts.executionTimeout > 0))
    rangeChecks.push([true, ['executionTimeout'], 'executionTimeout must be > 0']);
  for (const [bad, keys, text] of rangeChecks) {
    if (bad) {
      ctx.issues.push(loc.issue(keys, `Job ${excerpt(owner)}: ${text}`));
      ok = false;
    }
  }
  const workingDirectory = launchPlaceOf(owner, opts, ctx);
  return ok ? { environment, runAs, workingDirectory } : null;
}

/** The job-only rules (policies, catch-up, retry ranges), after the launch checks. */
export function checkJobOptions(name: string, job: JobOptions, loc: Locator, ctx: BuildContext): boolean {
  const problems: [string[], string][] = [];
  if (job.concurrencyScope === 'cluster' && job.concurrencyPolicy === 'Allow')
    problems.push([
      ['concurrencyScope'],
      'concurrencyScope: cluster has no effect with concurrencyPolicy: Allow (the default); set Forbid or Replace, or drop concurrencyScope',
    ]);
  if (job.catchupJitterSeconds < 0)
    problems.push([['catchupJitterSeconds'], 'catchupJitterSeconds must be >= 0']);
  if (job.startingDeadlineSeconds !== null && !(job.startingDeadlineSeconds > 0))
    problems.push([['startingDeadlineSeconds'], 'startingDeadlineSeconds must be > 0']);
  // Spec 09 §2.1: after the executionTimeout check (checkLaunch), before the retry checks.
  problems.push(...slaProblems(job));
  const r = job.onFailure.retry;
  if (!(r.maximumRetries >= -1))
    problems.push([['onFailure', 'retry', 'maximumRetries'], 'onFailure.retry.maximumRetries must be >= -1']);
  if (!(r.initialDelay >= 0))
    problems.push([['onFailure', 'retry', 'initialDelay'], 'onFailure.retry.initialDelay must be >= 0']);
  if (!(r.maximumDelay > 0))
    problems.push([['onFailure', 'retry', 'maximumDelay'], 'onFailure.retry.maximumDelay must be > 0']);
  if (!(r.backoffMultiplier > 0))
    problems.push([
      ['onFailure', 'retry', 'backoffMultiplier'],
      'onFailure.retry.backoffMultiplier must be > 0',
    ]);
  for (const [keys, text] of problems) ctx.issues.push(loc.issue(keys, `Job ${excerpt(name)}: ${text}`));
  let ok = problems.length === 0;
  for (const { key, block } of enabledEventlogs(job)) {
    const problem = eventlogSourceProblem(name, block);
    if (problem) {
      ctx.issues.push(loc.issue([key, 'report', 'eventlog', 'source'], problem));
      ok = false;
    }
  }
  return ok;
}
