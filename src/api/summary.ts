// `GET /summary` (spec 10 §4.3): the counts a wallboard or a status line needs, without the rows.
import type { WebContext } from './context.ts';
import { nodeName } from './deps.ts';
import { isoUtc } from './timefmt.ts';
import type { SummaryBody } from './wire/overview.schema.ts';

type NextFire = NonNullable<SummaryBody['next_fire']>;

/**
 * The job's next fire unless a pause holds it (spec 10 §4.3, vector 20): a held fire is ignored, not
 * replaced by the first one after the pause, so a paused job never headlines a wallboard.
 */
function unpausedFire(ctx: WebContext, name: string, next: number): number | null {
  const pause = ctx.scheduler.pauses.active(name);
  return pause && next < pause.untilMs ? null : next;
}

export function summaryBody(ctx: WebContext): SummaryBody {
  const now = ctx.clock.now();
  const jobs = { total: 0, enabled: 0, disabled: 0, running: 0, paused: 0, failing: 0, never_fires: 0 };
  let next: { job: string; at: number } | null = null;
  for (const st of ctx.scheduler.status()) {
    const job = ctx.scheduler.job(st.name);
    if (!job) continue;
    jobs.total++;
    if (job.enabled) jobs.enabled++;
    else jobs.disabled++;
    const running = st.status === 'running';
    if (running) jobs.running++;
    if (ctx.scheduler.pauses.active(st.name)) jobs.paused++;
    if (lastRealOutcome(ctx, st.name) === 'failure') jobs.failing++;
    if (job.enabled && !job.reboot && st.neverFires) jobs.never_fires++;
    // Disabled, running, @reboot and dead jobs have no countdown (the `/jobs` `scheduled_in` rule).
    if (!job.enabled || running || job.reboot || st.nextFire === null) continue;
    const at = unpausedFire(ctx, st.name, st.nextFire);
    if (at !== null && (next === null || at < next.at)) next = { job: st.name, at };
  }
  const fire: NextFire | null =
    next === null
      ? null
      : { job: next.job, in: Math.round(Math.max(0, next.at - now)) / 1000, at: isoUtc(next.at) };
  const dags = ctx.config().dags.length;
  const view = ctx.cluster();
  const report = view.enabled ? view.report : null;
  return {
    version: ctx.version,
    node_name: nodeName(ctx),
    generated_at: isoUtc(now),
    jobs,
    next_fire: fire,
    ...(dags > 0 ? { dags: { total: dags } } : {}),
    cluster: report
      ? {
          enabled: true,
          distribution: report.distribution,
          quorate: report.quorate,
          is_leader: report.is_leader,
          leader: report.leader,
        }
      : { enabled: false },
  };
}

/**
 * The outcome of the job's newest real run: a skipped slot never hides a failure (spec 10 §1.7's Do
 * better), so `failing` stays on the last run that ran.
 */
function lastRealOutcome(ctx: WebContext, name: string): string | null {
  const runs = ctx.scheduler.history(name)?.recentRuns() ?? [];
  for (let i = runs.length - 1; i >= 0; i--)
    if ((runs[i]!.outcome as string) !== 'skipped') return runs[i]!.outcome;
  return null;
}
