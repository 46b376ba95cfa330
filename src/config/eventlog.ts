// `report.eventlog` (spec 09 §7.6): the Windows Event Log reporter, accepted in every report block
// so one config can serve a mixed fleet. Nothing is written on Linux; an enabled block is checked
// and announced at load. Pure.
import type { ReportBlock } from './file-schema.ts';
import type { LoadWarning } from './types.ts';

export const EVENTLOG_DEFAULTS = { enabled: false, source: 'cronstable', includeOutput: false } as const;

/** The keys of a job (or DAG task) that hold a `report:` block; `onLate` when spec 09 §2 adds it. */
export const REPORT_HOLDERS = ['onFailure', 'onPermanentFailure', 'onSuccess', 'onLate'] as const;

type Eventlog = NonNullable<ReportBlock['eventlog']>;

/** Whether a block differs from its defaults (then it enters the job's identity). */
export function eventlogTuned(block: Eventlog | null | undefined): boolean {
  if (!block) return false;
  return (
    (block.enabled ?? false) !== EVENTLOG_DEFAULTS.enabled ||
    (block.source ?? EVENTLOG_DEFAULTS.source) !== EVENTLOG_DEFAULTS.source ||
    (block.includeOutput ?? false) !== EVENTLOG_DEFAULTS.includeOutput
  );
}

/** The report blocks of a job or task, by holder key, that have an enabled eventlog. */
export function enabledEventlogs(owner: object): { key: string; block: Eventlog }[] {
  const out: { key: string; block: Eventlog }[] = [];
  for (const key of REPORT_HOLDERS) {
    const holder = (owner as Record<string, { report?: ReportBlock | null } | null | undefined>)[key];
    const block = holder?.report?.eventlog;
    if (block?.enabled === true) out.push({ key, block });
  }
  return out;
}

const LOG_NAMES = new Set(['application', 'system', 'security']);

/** The problem with an enabled block's `source`, or null; `where` is `J`, `dag d task t` or `notify`. */
export function eventlogSourceProblem(where: string, block: Eventlog): string | null {
  const source = block.source ?? EVENTLOG_DEFAULTS.source;
  if (source === '' || source.includes('/') || source.includes('\\'))
    return `${where}: report.eventlog.source must be a non-empty name with no path separator (it names a registry key under the event log, not a path); got '${source}'`;
  if (LOG_NAMES.has(source.toLowerCase()))
    return `${where}: report.eventlog.source '${source}' is the name of a LOG, not of a source within one; choose a source name such as 'cronstable'`;
  return null;
}

/**
 * The one WARNING of a load with enabled blocks; `users` are `job <name>`, `dag <d> task <t>` or
 * `notify`, one per holder.
 */
export function eventlogWarning(users: readonly string[]): LoadWarning | null {
  if (users.length === 0) return null;
  return {
    level: 'warning',
    logger: 'cronstable.config',
    message: `report.eventlog is enabled (${[...new Set(users)].sort().join(', ')}) but there is no Windows Event Log on this platform, so those reports are dropped; the rest of each report block still fires normally`,
  };
}
