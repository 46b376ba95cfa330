// Loads a config file or directory (spec 01 §1.2-1.5, §7): includes, defaults, crontab files,
// singleton sections, per-job rules and the cross-section checks. All issues of one load are
// collected and raised together as one ConfigError.
import { readdirSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { builtinJobOptions } from './builtins.ts';
import { lowerCrontab } from './crontab.ts';
import { buildDag } from './dags.ts';
import { osMessage } from './envfile.ts';
import { ConfigError, type ConfigIssue, excerpt, issueAt, quote, type SourcePos } from './errors.ts';
import { enabledEventlogs, eventlogWarning } from './eventlog.ts';
import { fileSchema, type NotifySchemaOut, type RawDag, type RawFile, type RawJob } from './file-schema.ts';
import { isCrontabFile, isDirectoryEntryLoaded, sortEntryNames } from './files.ts';
import { systemIdentityDb } from './identity.ts';
import { type Env, interpolateFile } from './interpolate.ts';
import { type BuildContext, checkJobOptions, checkLaunch, parseScheduleFor } from './job.ts';
import { Locator } from './locate.ts';
import { checkMcp, checkMcpAgainstWeb } from './mcp.ts';
import { mergeConfig } from './merge.ts';
import { nameProblem } from './names.ts';
import { resolveNotify } from './notify.ts';
import { checkPush, enablesPush, type PushSectionRaw, pushWithoutSection, resolvePush } from './push.ts';
import { ConfigReadError, readConfigFile } from './read.ts';
import { checkCluster, checkState, checkWeb, loggingWarnings, webWarnings } from './sections.ts';
import type { TaskInheritance } from './task-template.ts';
import type { JobConfig, JobOptions, LoadedConfig } from './types.ts';
import { keyPos, locationOf, validateRoot } from './validators.ts';
import { parseStrictYaml } from './yaml.ts';

export interface LoadOptions {
  /** Base for relative `env_file` paths (the daemon's working directory). */
  cwd?: string;
  /** "Now" for lints (never-fires, DST notes). */
  nowMs?: number;
  /** Effective uid, for the user/group rule; null where unknown. */
  euid?: number | null;
  platform?: string;
  /** The environment `${NAME}` references read (spec 09 §1); the process's own by default. */
  env?: Env;
}

const SECTIONS = ['web', 'cluster', 'state', 'mcp', 'logging', 'notify', 'push'] as const;
type SectionName = (typeof SECTIONS)[number];

interface SectionEntry {
  value: unknown;
  file: string;
  pos: SourcePos;
}

/** A DAG as written, with the `defaults:` its tasks inherit (spec 09 §4.1: those of its own file). */
interface DagSource {
  raw: RawDag;
  inherited: TaskInheritance;
}

interface FileResult {
  jobs: JobConfig[];
  dags: DagSource[];
  /** Complete defaults this file's inline jobs got (built-ins, includes, own `defaults:`). */
  defaults: JobOptions;
  /** The raw `defaults:` maps behind `defaults`, nearest first, for error positions. */
  defaultsOrigins: object[];
  sections: Partial<Record<SectionName, SectionEntry>>;
}

function filePos(file: string): SourcePos {
  return { file, line: 1, col: 1 };
}

class Loader {
  readonly issues: ConfigIssue[] = [];
  readonly ctx: BuildContext;
  readonly env: Env;
  constructor(opts: LoadOptions) {
    // The daemon defines HOSTNAME at start; -v and --job-set-id must read `${HOSTNAME}` alike (spec 09 §1.5).
    if (!opts.env) process.env.HOSTNAME ??= hostname();
    this.env = opts.env ?? process.env;
    let identity: ReturnType<typeof systemIdentityDb> | undefined;
    this.ctx = {
      cwd: opts.cwd ?? process.cwd(),
      nowMs: opts.nowMs ?? Date.now(),
      identity: () => {
        identity ??= systemIdentityDb();
        return identity;
      },
      euid: opts.euid !== undefined ? opts.euid : (process.geteuid?.() ?? null),
      platform: opts.platform ?? process.platform,
      issues: this.issues,
      warnings: [],
      files: new Set(),
    };
  }

  buildJob(raw: RawJob, defaults: JobOptions, defaultsOrigins: object[]): JobConfig | null {
    const merged = mergeConfig(defaults, raw) as JobOptions & RawJob;
    const source = locationOf(raw)?.pos ?? filePos('?');
    const loc = new Locator([raw, ...defaultsOrigins], source);
    const badName = nameProblem(merged.name);
    if (badName) {
      this.issues.push(loc.issue(['name'], `job ${quote(merged.name)}: the name ${badName}`));
      return null;
    }
    const before = this.issues.length;
    const schedule = parseScheduleFor(
      merged.schedule,
      {
        timezone: merged.timezone,
        utc: merged.utc,
        hashKey: merged.name,
        allowReboot: true,
        label: 'job',
        dst: merged.dst,
      },
      loc,
      this.ctx,
    );
    if (!schedule) return null;
    const launch = checkLaunch(merged.name, merged, loc, this.ctx, `job ${quote(merged.name)}`);
    checkJobOptions(merged.name, merged, loc, this.ctx);
    if (!launch || this.issues.length > before) return null;
    return {
      ...merged,
      scheduleText: schedule.text,
      cron: schedule.cron,
      reboot: schedule.reboot,
      frame: schedule.frame,
      findings: schedule.findings,
      effectiveEnvironment: launch.environment,
      runAs: launch.runAs,
      workingDirectory: launch.workingDirectory,
      source,
    };
  }

  /**
   * Parses one file (and its includes); null when it had errors (already recorded). `directive`
   * is the include entry that named the file: a file that cannot be read is reported there.
   */
  parseFile(path: string, label: string, seen: Set<string>, directive?: ConfigIssue): FileResult | null {
    const abs = resolve(path);
    let text: string;
    try {
      text = readConfigFile(abs);
    } catch (e) {
      if (e instanceof ConfigReadError && e.at)
        this.issues.push({ file: label, line: e.at.line, col: e.at.col, message: e.message });
      else {
        const message = e instanceof ConfigReadError ? e.message : osMessage(e);
        this.issues.push(directive ? { ...directive, message } : { file: label, message });
      }
      return null;
    }
    this.ctx.files.add(abs);
    if (isCrontabFile(abs, text)) {
      const lowered = lowerCrontab(text, label);
      this.issues.push(...lowered.issues);
      const defaults = builtinJobOptions();
      const jobs = lowered.jobs.map((j) => this.buildJob(j, defaults, []));
      if (lowered.issues.length > 0 || jobs.some((j) => j === null)) return null;
      return { jobs: jobs as JobConfig[], dags: [], defaults, defaultsOrigins: [], sections: {} };
    }
    const parsed = parseStrictYaml(text, label);
    if (parsed.issues.length > 0) {
      this.issues.push(...parsed.issues);
      return null;
    }
    if (parsed.source.root === null) return this.emptyFile();
    const { value, issues } = validateRoot(fileSchema, parsed.source);
    if (issues.length > 0 || typeof value !== 'object') {
      this.issues.push(...issues);
      return null;
    }
    const unset = interpolateFile(value, this.env, label);
    if (unset.length > 0) {
      this.issues.push(...unset);
      return null;
    }
    return this.assemble(value, abs, label, seen);
  }

  emptyFile(): FileResult {
    return { jobs: [], dags: [], defaults: builtinJobOptions(), defaultsOrigins: [], sections: {} };
  }

  assemble(file: RawFile, abs: string, label: string, seen: Set<string>): FileResult | null {
    const before = this.issues.length;
    const sections: FileResult['sections'] = {};
    for (const name of SECTIONS) {
      if (file[name] !== undefined)
        sections[name] = { value: file[name], file: label, pos: keyPos(file, name) ?? filePos(label) };
    }
    const jobs: JobConfig[] = [];
    const dags: DagSource[] = [];
    let included: JobOptions | undefined;
    const includedOrigins: object[] = [];
    (file.include ?? []).forEach((entry, i) => {
      const target = isAbsolute(entry) ? entry : join(dirname(abs), entry);
      const targetAbs = resolve(target);
      const pos = keyPos(file.include, String(i)) ?? filePos(label);
      const directive = issueAt(pos, `include[${i}]`, '');
      if (seen.has(targetAbs)) {
        this.issues.push({ ...directive, message: `include cycle detected at ${excerpt(entry)}` });
        return;
      }
      seen.add(targetAbs);
      const child = this.parseFile(target, target, seen, directive);
      if (!child) return;
      jobs.push(...child.jobs);
      dags.push(...child.dags);
      included = included ? mergeConfig(included, child.defaults) : child.defaults;
      includedOrigins.unshift(...child.defaultsOrigins);
      for (const name of SECTIONS) {
        const theirs = child.sections[name];
        if (!theirs) continue;
        if (sections[name]) this.issues.push(issueAt(theirs.pos, name, `multiple ${name} configs`));
        else sections[name] = theirs;
      }
    });
    const own = file.defaults ?? {};
    const defaults = mergeConfig(included ?? builtinJobOptions(), own);
    const defaultsOrigins = file.defaults ? [file.defaults, ...includedOrigins] : includedOrigins;
    for (const raw of file.jobs ?? []) {
      const job = this.buildJob(raw, defaults, defaultsOrigins);
      if (job) jobs.push(job);
    }
    for (const raw of file.dags ?? []) dags.push({ raw, inherited: { defaults, origins: defaultsOrigins } });
    if (this.issues.length > before) return null;
    return { jobs, dags, defaults, defaultsOrigins, sections };
  }

  loadPath(path: string): { results: FileResult[]; sections: Partial<Record<SectionName, SectionEntry>> } {
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch (e) {
      throw new ConfigError([{ message: osMessage(e) }]);
    }
    if (!isDir) {
      const seen = new Set([resolve(path)]);
      const r = this.parseFile(path, path, seen);
      return { results: r ? [r] : [], sections: r?.sections ?? {} };
    }
    this.ctx.files.add(resolve(path));
    const results: FileResult[] = [];
    const sections: Partial<Record<SectionName, SectionEntry>> = {};
    for (const name of sortEntryNames(readdirSync(path)).filter(isDirectoryEntryLoaded)) {
      const entry = join(path, name);
      const r = this.parseFile(entry, entry, new Set([resolve(entry)]));
      if (!r) continue;
      results.push(r);
      for (const s of SECTIONS) {
        const theirs = r.sections[s];
        if (!theirs) continue;
        const first = sections[s];
        if (first)
          this.issues.push(
            issueAt(
              theirs.pos,
              s,
              `Multiple '${s}' configurations found: first in ${first.file}, now in ${theirs.file}`,
            ),
          );
        else sections[s] = theirs;
      }
    }
    return { results, sections };
  }
}

/** A later job with the same name replaces the earlier one, keeping the first position. */
/** Spec 09 §7.1: the scheduler tracks jobs by name, so a repeated name would hide all but its last definition. */
function duplicateJobNames(jobs: readonly JobConfig[]): ConfigIssue | null {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  let first: JobConfig | undefined;
  for (const j of jobs) {
    if (!seen.has(j.name)) seen.add(j.name);
    else {
      first ??= j;
      repeated.add(j.name);
    }
  }
  if (!first) return null;
  const names = [...repeated].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(', ');
  return {
    ...first.source,
    message: `duplicate job name(s): ${names}; the scheduler tracks jobs by name, so all but the last definition of a name would silently never run. Rename the duplicates.`,
  };
}

function crossChecks(cfg: LoadedConfig, rawDags: RawDag[], issues: ConfigIssue[]): void {
  const at = (job: JobConfig | undefined, key: string, message: string) =>
    issues.push(issueAt(job ? (keyPos(job, key) ?? job.source) : undefined, undefined, message));
  const offenders = (pred: (j: JobConfig) => boolean) => cfg.jobs.filter(pred);
  const names = (jobs: JobConfig[]) =>
    jobs
      .map((j) => j.name)
      .sort()
      .join(', ');
  const clusterScoped = offenders((j) => j.concurrencyScope === 'cluster');
  if (clusterScoped.length > 0 && !cfg.state)
    at(
      clusterScoped[0],
      'concurrencyScope',
      `concurrencyScope: cluster requires a 'state' section (the slot lease lives in the store); offending job(s): ${names(clusterScoped)}`,
    );
  const withSecrets = offenders((j) => j.secrets.length > 0);
  if (withSecrets.length > 0 && !cfg.state)
    at(
      withSecrets[0],
      'secrets',
      `job 'secrets' are staged over the state loopback endpoint, which requires a 'state' section; offending job(s): ${names(withSecrets)}`,
    );
  const apiEnabled = cfg.state?.jobApi?.enabled ?? true;
  if (withSecrets.length > 0 && cfg.state && !apiEnabled)
    at(
      withSecrets[0],
      'secrets',
      `job 'secrets' need the state loopback endpoint, but state.jobApi.enabled is false; offending job(s): ${names(withSecrets)}`,
    );
  if (rawDags.length > 0) {
    const dagNames = rawDags.map((d) => d.name).join(', ');
    const pos = locationOf(rawDags[0])?.pos;
    if (!cfg.state) issues.push(issueAt(pos, 'dags', `dags require a 'state' section; dag(s): ${dagNames}`));
    else if (!apiEnabled)
      issues.push(
        issueAt(
          pos,
          'dags',
          `dags need the state loopback endpoint, but state.jobApi.enabled is false; dag(s): ${dagNames}`,
        ),
      );
    const counts = new Map<string, number>();
    for (const d of rawDags) counts.set(d.name, (counts.get(d.name) ?? 0) + 1);
    const dups = [...counts].filter(([, n]) => n > 1).map(([n]) => n);
    if (dups.length > 0) issues.push(issueAt(pos, 'dags', `duplicate dag names: ${dups.sort().join(', ')}`));
  }
  const jobNames = new Set(cfg.jobs.map((j) => j.name));
  const launchOwners = new Map<string, string>();
  for (const dag of cfg.dags) {
    for (const task of dag.tasks) {
      const other = launchOwners.get(task.launchName);
      if (jobNames.has(task.launchName))
        issues.push(
          issueAt(
            dag.source,
            'dags',
            `dag '${dag.name}': task '${task.id}': launch name '${task.launchName}' collides with a job of the same name`,
          ),
        );
      else if (other && other !== dag.name)
        issues.push(
          issueAt(
            dag.source,
            'dags',
            `dag '${dag.name}': task '${task.id}': launch name '${task.launchName}' collides with a task of dag '${other}'`,
          ),
        );
      launchOwners.set(task.launchName, dag.name);
    }
  }
  if (cfg.mcp !== null && !cfg.web) issues.push({ message: "an 'mcp' section requires a 'web' section" });
}

/** Spec 10 §6.1: the section against `state:` and `web:`, and report blocks that need the section. */
function pushChecks(cfg: LoadedConfig, section: SectionEntry | undefined, issues: ConfigIssue[]): void {
  if (section) {
    const ctx = { hasState: cfg.state !== null, web: cfg.web };
    checkPush(section.value as PushSectionRaw, ctx, section.pos, issues);
    return;
  }
  const jobs = cfg.jobs.filter(enablesPush);
  const users = jobs.map((j) => `job ${j.name}`);
  for (const dag of cfg.dags)
    for (const t of dag.tasks) if (enablesPush(t)) users.push(`dag ${dag.name} task ${t.id}`);
  if (cfg.notify?.report.push?.enabled === true) users.push('notify');
  const issue = pushWithoutSection(users, jobs[0]?.source);
  if (issue) issues.push(issue);
}

/** Loads and validates a configuration file or directory; throws ConfigError listing every problem. */
export function loadConfig(path: string, opts: LoadOptions = {}): LoadedConfig {
  const loader = new Loader(opts);
  const { results, sections } = loader.loadPath(path);
  const issues = loader.issues;
  const warnings = loader.ctx.warnings;
  const sectionValue = <T>(name: SectionName): T | null => (sections[name]?.value as T | undefined) ?? null;
  const cfg: LoadedConfig = {
    jobs: results.flatMap((r) => r.jobs),
    dags: [],
    state: sectionValue('state'),
    cluster: sectionValue('cluster'),
    web: sectionValue('web'),
    mcp: sections.mcp ? ((sections.mcp.value as LoadedConfig['mcp']) ?? {}) : null,
    logging: sectionValue('logging'),
    notify: sections.notify ? resolveNotify(sections.notify.value as NotifySchemaOut) : null,
    push: sections.push ? resolvePush(sections.push.value as PushSectionRaw) : null,
    files: [],
    warnings,
  };
  const eventlog = eventlogWarning(
    cfg.jobs.filter((j) => enabledEventlogs(j).length > 0).map((j) => `job ${j.name}`),
  );
  if (eventlog) warnings.push(eventlog);
  const duplicates = duplicateJobNames(cfg.jobs);
  if (duplicates) issues.push(duplicates);
  const fallback = (name: SectionName) => sections[name]?.pos ?? filePos(path);
  if (cfg.state) checkState(cfg.state, fallback('state'), issues, warnings);
  if (cfg.cluster) checkCluster(cfg.cluster, fallback('cluster'), issues, warnings);
  if (cfg.web) {
    checkWeb(cfg.web, fallback('web'), issues);
    webWarnings(cfg.web, warnings);
  }
  if (cfg.logging) loggingWarnings(cfg.logging, warnings);
  if (cfg.mcp) {
    checkMcp(cfg.mcp, fallback('mcp'), issues);
    checkMcpAgainstWeb(cfg.mcp, cfg.web, fallback('mcp'), issues, warnings);
  }
  const dagSources = results.flatMap((r) => r.dags);
  const rawDags = dagSources.map((d) => d.raw);
  for (const { raw, inherited } of dagSources) {
    const dag = buildDag(raw, loader.ctx, locationOf(raw)?.pos ?? filePos(path), inherited);
    if (dag) cfg.dags.push(dag);
  }
  crossChecks(cfg, rawDags, issues);
  pushChecks(cfg, sections.push, issues);
  if (!cfg.state) {
    const inert = cfg.jobs.filter((j) => j.onMissed !== 'skip' || j.archiveOutput);
    if (inert.length > 0)
      warnings.push({
        level: 'warning',
        logger: 'cronstable',
        message: `onMissed/archiveOutput need a 'state' section and have no effect without one; job(s): ${inert.map((j) => j.name).join(', ')}`,
      });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  cfg.files = [...loader.ctx.files];
  return cfg;
}
