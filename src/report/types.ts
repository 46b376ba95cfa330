// The contract between the scheduler and reporting (spec 02 §9, §12).

import type { PushPriority } from '../config/push.ts';
import type { ReportBlock } from '../config/types.ts';
import type { PushPlaintext } from './push/plaintext.ts';

export type { ReportBlock };

export type ReportHook = 'failure' | 'permanentFailure' | 'success';

/** Template variables (spec 02 §9.4) plus what the shell reporter exports. */
export interface ReportContext {
  name: string;
  success: boolean;
  fail_reason: string | null;
  stdout: string | null;
  stderr: string | null;
  exit_code: number | null;
  command: string | string[];
  shell: string;
  environment: Record<string, string> | null;
  cpu_seconds: number | null;
  cpu_user_seconds: number | null;
  cpu_system_seconds: number | null;
  max_rss_bytes: number | null;
  /** The schedule as a crontab string (object forms rendered), for CRONSTABLE_JOB_SCHEDULE. */
  schedule: string;
  /**
   * Spec 09 §6, the run context. `host`: the daemon's `HOSTNAME` (absent = read it at report time; never
   * null). `started_at`: the launch attempt instant, ISO-8601 UTC. `run_id`: the id the run saw as
   * `CRONSTABLE_RUN_ID` (a DAG task: its DAG run's id). Absent = null, for contexts without a run.
   */
  host?: string;
  started_at?: string | null;
  run_id?: string | null;
  /** More template variables (an event's `event`, `subject`, ...); they win over the standard ones. */
  extra?: Record<string, unknown>;
  /** More shell reporter variables, exported after the standard ones. */
  extraEnv?: Record<string, string>;
  /** The breach an `onLate` report is about (spec 09 §2.7); absent for run reports. */
  sla?: SlaBreachFacts | null;
}

/** One SLA breach, as the `onLate` report's four breach variables carry it. */
export interface SlaBreachFacts {
  check: string;
  thresholdSeconds: number;
  observedSeconds: number;
  /** ISO instant of the staleness reference when it is a real success, else null. */
  lastSuccessAt: string | null;
}

export interface ReportLogger {
  debug(message: string): void;
  info(message: string): void;
  warning(message: string): void;
  error(message: string): void;
}

export interface ReportOptions {
  logger: ReportLogger;
  /** Environment for fromEnvVar lookups and the shell reporter (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Wall clock (mail Date header); default Date.now. */
  now?: () => number;
  /** One mail report's overall budget, ms (default MAIL_BUDGET_MS, 60 s); tests shorten it. */
  mailBudgetMs?: number;
  /** What a reporter error is about: `Problem reporting <problem>: <error>` (default `job <name> failure`). */
  problem?: string;
  /** The daemon's push channel (spec 10 §6.3), null while none runs; absent: push reports are dropped. */
  push?: () => PushSender | null;
  /** What a reporter error says was being reported (`Problem reporting job <name> <what>`); default `failure`. */
  what?: string;
}

export interface StatsdTarget {
  prefix: string;
  host: string;
  port: number;
  /** Job name for the warning texts (`Job <name>: failed to send ...`); default: the prefix. */
  job?: string;
}

/** What the stop datagram reports (spec 02 §12). */
export interface StatsdStopMetrics {
  /** The run's final verdict (fail_reason is null). */
  success: boolean;
  /** Monotonic time from the start metric to process exit/cancel, ms (rounded when sent). */
  durationMs: number;
  /** CPU time of the run's process tree, ms; only when resource-monitored. */
  cpuMs?: number | null;
  /** Peak RSS, bytes; only when resource-monitored. */
  maxRssBytes?: number | null;
}

/** One alert for the push channel (spec 10 §6.3). */
export interface PushAlert {
  plaintext: PushPlaintext;
  priority: PushPriority;
  /** A `notify:` event. */
  event: boolean;
  /** What the alert is about, for the log (`<job>`). */
  about: string;
}

/** Where the push reporter hands its alert (report/push/service.ts). */
export interface PushSender {
  /** Starts delivering; never throws, failures are logged. */
  dispatch(alert: PushAlert): void;
}
