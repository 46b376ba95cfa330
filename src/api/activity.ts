// `GET /activity` (spec 10 §4.4): every job's retained runs (and pause skips) as the heat map needs them, in one body,
// so a dashboard asks once instead of once per job. The default body (every retained run) is shared
// between requests (./shared-body.ts); a `limit` keeps the newest N of each job.
import { isSkip } from '../scheduler/history.ts';
import type { WebContext } from './context.ts';
import { isoUtc, isoUtcOrNull } from './timefmt.ts';
import type { ActivityBody, ActivityRun } from './wire/overview.schema.ts';

/** The history a job retains, and so the default and the most `limit` can ask for. */
export const ACTIVITY_MAX_RUNS = 50;

/** Every job in config order, each with at most `limit` of its newest runs, oldest first. */
export function activityBody(ctx: WebContext, limit = ACTIVITY_MAX_RUNS): ActivityBody {
  const jobs: Record<string, ActivityRun[]> = {};
  for (const name of ctx.scheduler.jobNames()) {
    // Runs and the slots a pause skipped (spec 10 §1.7: skips show in /activity).
    const runs = ctx.scheduler.history(name)?.timeline() ?? [];
    const from = Math.max(0, runs.length - Math.min(limit, ACTIVITY_MAX_RUNS));
    const out = new Array<ActivityRun>(runs.length - from);
    for (let i = from; i < runs.length; i++) {
      const r = runs[i]!;
      out[i - from] = isSkip(r)
        ? { started_at: null, finished_at: isoUtc(r.finishedAt), outcome: 'skipped' }
        : { started_at: isoUtcOrNull(r.startedAt), finished_at: isoUtc(r.finishedAt), outcome: r.outcome };
    }
    jobs[name] = out;
  }
  return { jobs };
}
