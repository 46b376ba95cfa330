// One expression, checked the way the scheduler would run it (spec 01 §6.4, spec 06 §5.11/§9.2): parse
// (with `H` resolved from a seed), describe, list the next fires in a frame under a DST policy, and lint.
// The `/schedule/preview` route and the dashboards' cron sandbox both render this one answer.
import type { DstPolicy } from './dst.ts';
import { ScheduleError } from './errors.ts';
import { lintSchedule, type ScheduleFinding } from './lint.ts';
import { type CronSchedule, isReboot, parseCron } from './parse.ts';
import { occurrences } from './search.ts';
import type { Frame } from './zone.ts';

export type ExpressionPreview =
  | { kind: 'empty' }
  | { kind: 'reboot' }
  | { kind: 'error'; error: string }
  | { kind: 'ok'; cron: CronSchedule; fires: number[]; findings: ScheduleFinding[] };

/** The text `@reboot` previews as (it has no fires to list). */
export const REBOOT_DESCRIPTION = 'once, when the daemon starts';

/**
 * `count` fires strictly after `now`; `seed` is the hash key `H` fields resolve with (a job's name).
 * Only a schedule error is an answer; anything else thrown is a bug and propagates.
 */
export function previewExpression(
  expr: string,
  frame: Frame,
  now: number,
  opts: { count: number; seed?: string; dst?: DstPolicy },
): ExpressionPreview {
  const text = expr.trim();
  if (text === '') return { kind: 'empty' };
  if (isReboot(text)) return { kind: 'reboot' };
  let cron: CronSchedule;
  try {
    cron = parseCron(text, { hashKey: opts.seed ?? '' });
  } catch (e) {
    if (!(e instanceof ScheduleError)) throw e;
    return { kind: 'error', error: e.message };
  }
  const fires = occurrences(cron, frame, now, { limit: opts.count, ...(opts.dst ? { dst: opts.dst } : {}) });
  const findings = lintSchedule(cron, frame, now, opts.dst).map((f) => ({
    code: f.code,
    level: f.level,
    message: f.message,
  }));
  return { kind: 'ok', cron, fires, findings };
}
