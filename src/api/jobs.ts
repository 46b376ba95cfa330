// The job payloads of the REST API (spec 06 §5.3-§5.6), shared by the routes in routes/jobs.ts and the
// MCP job tools (spec 07 §4.3): the `/jobs` rows, a job's runs, resources and trends, and the manual
// start/cancel actions. Each returns an ApiResult so a route and a tool answer from the same code.
import { monitorSettings } from '../exec/procstat.ts';
import { errorText } from '../util/errors.ts';
import type { ApiDeps, JobsBody } from './deps.ts';
import { resourceStats } from './jobresources.ts';
import { jobsList, rowObject, runObject, runStats, trends } from './jobview.ts';
import { sharedBody, tagOf } from './shared-body.ts';
import { type ApiResult, fail, ok } from './types.ts';
import type { JobResources, JobRow, JobRuns, JobTrends } from './wire/jobs.schema.ts';

export type { JobRow } from './wire/jobs.schema.ts';

/** `launched`, or what concurrencyPolicy made of the manual start (spec 07 §4.3 Do better). */
export type StartOutcome = 'launched' | 'skipped-forbid' | 'replaced';

export const jobNotFoundText = (name: string) => `job '${name}' not found`;
const notFound = (name: string) => fail(404, jobNotFoundText(name));

/**
 * Every job in config order, as `GET /jobs` serves them now: the rows of its shared body, so a tool
 * that reads them (cron_list_jobs, cron_get_incident) costs no rebuild while that body stands.
 */
export function jobRows(d: ApiDeps): readonly JobRow[] {
  return jobsRendering(d).rows;
}

/** The `/jobs` rendering itself: its bytes, its rows and where each row's JSON ends. */
export function jobsRendering(d: ApiDeps): JobsBody {
  return d.bodies.jobs.get();
}

const enc = new TextEncoder();

/**
 * `GET /jobs` as a shared body (spec 10 §4.10). Its tag hashes the rows with each countdown replaced
 * by the absolute next fire, so a poller's If-None-Match keeps matching while only time passes.
 */
export function jobsSharedBody(d: ApiDeps): JobsBody {
  const fires: (number | null)[] = [];
  const rows = withRunningResources(d, jobsList(d.ctx, undefined, fires) as JobRow[]);
  // The array's text, one row at a time, so a tool can cut rows out of it (renderedRows).
  const rowEnds = new Uint32Array(rows.length);
  const chunks: Uint8Array[] = [OPEN];
  let at = OPEN.byteLength;
  rows.forEach((r, i) => {
    if (i > 0) {
      chunks.push(COMMA);
      at += COMMA.byteLength;
    }
    const row = enc.encode(JSON.stringify(r));
    chunks.push(row);
    at += row.byteLength;
    rowEnds[i] = at;
  });
  chunks.push(CLOSE);
  const bytes = Buffer.concat(chunks);
  const timeless = rows.map((r, i) => (r.scheduled_in === null ? r : { ...r, scheduled_in: fires[i]! }));
  return { ...sharedBody(bytes, tagOf(JSON.stringify(timeless))), rows, rowEnds };
}

const OPEN = enc.encode('[');
const COMMA = enc.encode(',');
const CLOSE = enc.encode(']');

/**
 * The rows at `picked` (ascending indices) as a JSON array, cut from the rendering's bytes: what
 * JSON.stringify makes of those rows, without serialising them again. Adjacent rows are one cut.
 */
export function renderedRows(body: JobsBody, picked: readonly number[]): Uint8Array[] {
  const start = (i: number) => (i === 0 ? OPEN.byteLength : body.rowEnds[i - 1]! + COMMA.byteLength);
  const out: Uint8Array[] = [OPEN];
  for (let k = 0; k < picked.length; ) {
    let j = k;
    while (j + 1 < picked.length && picked[j + 1] === picked[j]! + 1) j++;
    if (k > 0) out.push(COMMA);
    out.push(body.bytes.subarray(start(picked[k]!), body.rowEnds[picked[j]!]));
    k = j + 1;
  }
  out.push(CLOSE);
  return out;
}

/** One job's row, as a `GET /jobs` element. */
export function jobRow(d: ApiDeps, name: string): ApiResult<JobRow> {
  // Only the asked-for row is built: the other rows' cluster owners and countdowns are not needed.
  const row = withRunningResources(d, jobsList(d.ctx, name) as JobRow[])[0];
  return row ? ok(row) : notFound(name);
}

/** A running monitored job's live CPU and memory, once the sampler has read it (spec 06 §5.4). */
function withRunningResources(d: ApiDeps, rows: JobRow[]): JobRow[] {
  for (const row of rows) {
    if (!row.running) continue;
    const r = d.jobResources.runningOf(row.name);
    if (r) row.running_resources = r;
  }
  return rows;
}

/** The most runs a job retains, and so the default and the most `/runs?limit=` can ask for. */
export const RUNS_LIMIT = 50;

/**
 * `GET /jobs/{name}/runs`: the newest `limit` retained runs, oldest first, with stats over every
 * retained run (spec 10 §4.5).
 */
export function jobRuns(d: ApiDeps, name: string, limit = RUNS_LIMIT): ApiResult<JobRuns> {
  const history = d.ctx.scheduler.history(name);
  if (!history) return notFound(name);
  // Runs and the slots a pause skipped; `stats.total` counts the skips, nothing else does (spec 10 §1.5).
  const rows = history.recentRows();
  const all = rows.flatMap((r) => ('run' in r ? [r.run] : []));
  const stats = { ...runStats(all), total: rows.length };
  const shown = rows.slice(-limit);
  // Runs the resource sampler watched carry their CPU time and peak RSS (spec 06 §5.5).
  const sampled = d.jobResources.summariesOf(name);
  if (sampled.size === 0) return ok({ name, runs: shown.map(rowObject), stats } as JobRuns);
  const usage = all.map((r) => sampled.get(r.id) ?? null);
  return ok({
    name,
    runs: shown.map((r) =>
      'run' in r ? { ...runObject(r.run), resources: sampled.get(r.run.id) ?? null } : rowObject(r),
    ),
    stats: { ...stats, ...resourceStats(usage) },
  } as JobRuns);
}

/** `GET /jobs/{name}/resources`: live samples and the newest `runs` sampled runs, oldest first. */
export function jobResources(d: ApiDeps, name: string, runs: number): ApiResult<JobResources> {
  const { ctx } = d;
  const job = ctx.scheduler.job(name);
  if (!job) return notFound(name);
  const m = monitorSettings(job.monitorResources);
  const records = ctx.scheduler.history(name)?.recentRuns() ?? [];
  return ok({
    name,
    monitored: m.enabled,
    interval: m.interval,
    live: d.jobResources.liveOf(name),
    // Each sampled run joins its run record (outcome, exit code, times) when the history still holds it.
    runs: d.jobResources.runsOf(name, runs).map((r) => {
      const rec = records.find((x) => x.id === r.run_id);
      return rec ? { ...runObject(rec), pid: r.pid, resources: r.resources } : r;
    }),
  } as JobResources);
}

/** `GET /jobs/{name}/trends`: run stats over time windows. */
export function jobTrends(d: ApiDeps, name: string): ApiResult<JobTrends> {
  if (!d.ctx.scheduler.job(name)) return notFound(name);
  return ok(trends(d.ctx, name) as JobTrends);
}

/**
 * `POST /jobs/{name}/start`: launches now, ignoring leadership, under the job's concurrencyPolicy.
 * The outcome says whether Forbid skipped it or Replace cancelled running instances first.
 */
export async function startJob(
  d: ApiDeps,
  name: string,
): Promise<ApiResult<{ started: string; outcome: StartOutcome }>> {
  const { scheduler } = d.ctx;
  const busy = scheduler.running(name).length > 0;
  const replacing = busy && scheduler.job(name)?.concurrencyPolicy === 'Replace';
  const result = await scheduler.startJob(name);
  d.status.invalidate();
  if (result === 'unknown') return notFound(name);
  if (result === 'disabled') return fail(409, `job '${name}' is disabled`);
  const outcome: StartOutcome = result === 'skipped' ? 'skipped-forbid' : replacing ? 'replaced' : 'launched';
  return ok({ started: name, outcome });
}

/**
 * `POST /jobs/{name}/cancel`: answers once the cancellation is under way (terminate -> killTimeout
 * -> kill runs on); `instances` is how many runs were running.
 */
export function cancelJob(d: ApiDeps, name: string): ApiResult<{ cancelled: string; instances: number }> {
  const { scheduler } = d.ctx;
  if (!scheduler.job(name)) return notFound(name);
  const instances = scheduler.running(name).length;
  if (instances === 0) return fail(409, `job '${name}' is not running`);
  scheduler.cancelJob(name).then(
    () => d.status.invalidate(),
    (e: unknown) => d.log.error(`web: cancelling job ${name} failed: ${errorText(e)}`),
  );
  d.status.invalidate();
  return ok({ cancelled: name, instances });
}
