// The loaded, validated configuration that the rest of cronstable consumes.
import type { CronSchedule, DstPolicy, Frame, ScheduleFinding } from '../schedule/index.ts';
import type { SourcePos } from './errors.ts';
import type {
  ClusterSection,
  LoggingSection,
  McpSection,
  ReportBlock,
  ScheduleObject,
  SecretSource,
  StateSection,
  WebSection,
} from './file-schema.ts';
import type { PriorityLevel } from './launch-place.ts';
import type { NotifyEventName } from './notify-events.ts';
import type { PushSettings } from './push.ts';
import type { SlaThresholds } from './sla.ts';

export type { ReportBlock, SecretSource };

export interface EnvVar {
  key: string;
  value: string;
}

export interface RetryPolicy {
  maximumRetries: number;
  initialDelay: number;
  maximumDelay: number;
  backoffMultiplier: number;
}

export interface FailsWhen {
  producesStdout: boolean;
  producesStderr: boolean;
  nonzeroReturn: boolean;
  always: boolean;
}

export interface MonitorResources {
  enabled: boolean;
  interval: number;
  history: number;
}

export interface JobSecret {
  name: string;
  value: string | null;
  fromFile: string | null;
  fromEnvVar: string | null;
}

/** Options shared by jobs and DAG tasks (everything that shapes one process run). */
export interface CommandSettings {
  shell: string;
  environment: EnvVar[];
  env_file: string | null;
  captureStdout: boolean;
  captureStderr: boolean;
  saveLimit: number;
  maxLineLength: number;
  streamPrefix: string;
  failsWhen: FailsWhen;
  executionTimeout: number | null;
  killTimeout: number;
  user: number | string | null;
  group: number | string | null;
  statsd: { prefix: string; host: string; port: number } | null;
  monitorResources: boolean | Partial<MonitorResources>;
  secrets: JobSecret[];
  stateAllowedScopes: string[];
  /** Absolute after load (spec 09 §3.2); null = the daemon's cwd. */
  workingDirectory: string | null;
  priority: PriorityLevel;
}

/** Every key `defaults:` may set (a job minus name, command and schedule), fully defaulted. */
export interface JobOptions extends CommandSettings {
  enabled: boolean;
  utc: boolean;
  timezone: string | null;
  /** DST policy (issue 15); built-in first / shift is spec 01 §5.8's behaviour. */
  dst: DstPolicy;
  onFailure: { retry: RetryPolicy; report: ReportBlock };
  onPermanentFailure: { report: ReportBlock };
  onSuccess: { report: ReportBlock };
  /** Spec 09 §2: SLA thresholds (null = check off) and the report fired once per breach. */
  sla: SlaThresholds;
  onLate: { report: ReportBlock };
  concurrencyPolicy: 'Allow' | 'Forbid' | 'Replace';
  concurrencyScope: 'node' | 'cluster';
  clusterPolicy: 'Leader' | 'PreferLeader' | 'EveryNode';
  onMissed: 'skip' | 'run-once' | 'run-all';
  startingDeadlineSeconds: number | null;
  catchupJitterSeconds: number;
  onlyIfLastSucceeded: boolean;
  archiveOutput: boolean;
  redactArchivedSecrets: boolean;
}

/** Resolved uid/gid for a privilege drop. */
export interface RunAs {
  uid: number | null;
  gid: number | null;
  login: string | null;
}

export interface JobConfig extends JobOptions {
  name: string;
  command: string | string[];
  /** The schedule as written (string, or the object form). */
  schedule: string | ScheduleObject;
  /** Whitespace-normalised text, object form rendered (display, job-set id). */
  scheduleText: string;
  /** Parsed expression; null for `@reboot`. */
  cron: CronSchedule | null;
  reboot: boolean;
  frame: Frame;
  findings: ScheduleFinding[];
  /** Environment after `env_file` (file variables first, then `environment`). */
  effectiveEnvironment: EnvVar[];
  runAs: RunAs | null;
  /** Where the job was defined. */
  source: SourcePos;
}

export interface DagTaskConfig extends CommandSettings {
  id: string;
  type: 'task' | 'sensor' | 'approval';
  command: string | string[] | null;
  dependsOn: string[];
  triggerRule: 'all_success' | 'all_done';
  retries: number;
  retryDelaySeconds: number;
  expand: { fromTask: string; key: string } | null;
  pokeIntervalSeconds: number;
  pokeTimeoutSeconds: number;
  pokeJitterSeconds: number;
  onReject: 'fail' | 'skip';
  /** Spec 09 §4.3: reported per finished instance; `onFailure` has no `retry` (attempts are `retries`). */
  onFailure: { report: ReportBlock };
  onSuccess: { report: ReportBlock };
  /** `<dag>.<id>`: the name the task runs under. */
  launchName: string;
  effectiveEnvironment: EnvVar[];
  runAs: RunAs | null;
}

export interface DagConfig {
  name: string;
  tasks: DagTaskConfig[];
  schedule: string | ScheduleObject | null;
  scheduleText: string | null;
  cron: CronSchedule | null;
  timezone: string | null;
  utc: boolean;
  frame: Frame;
  dst: DstPolicy;
  findings: ScheduleFinding[];
  onMissed: 'skip' | 'run-once' | 'run-all';
  startingDeadlineSeconds: number | null;
  catchupJitterSeconds: number;
  clusterPolicy: 'Leader' | 'PreferLeader' | 'EveryNode';
  enabled: boolean;
  retainRuns: number;
  source: SourcePos;
}

export interface LoadedConfig {
  jobs: JobConfig[];
  dags: DagConfig[];
  state: StateSection | null;
  cluster: ClusterSection | null;
  web: WebSection | null;
  mcp: McpSection | null;
  logging: LoggingSection | null;
  /** The top-level `notify:` block (spec 09 §5), null when absent. */
  notify: NotifySettings | null;
  /** The top-level `push:` section (spec 10 §6.1), null when absent. */
  push: PushSettings | null;
  /** Every file the load read (for reload change detection): config files, includes, env_files. */
  files: string[];
  /** Non-fatal findings to log at load (schedule lints, advisories). */
  warnings: LoadWarning[];
}

/** The top-level `notify:` block as loaded (spec 09 §5.1). */
export interface NotifySettings {
  /** The events it reports, in the spec's order (all four when `events` is absent). */
  events: NotifyEventName[];
  /** The block merged over the reporter defaults; the event templates are the notifier's. */
  report: ReportBlock;
}

export interface LoadWarning {
  level: 'warning' | 'info';
  logger: string;
  message: string;
}
