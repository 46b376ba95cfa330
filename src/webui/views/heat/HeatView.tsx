// ▦ heat: per-job activity in 24 buckets over the last 6 h, 24 h or 7 d, from every job's retained runs in
// one `/activity` request (spec 10 §4.4); a daemon without that route (404) is asked `/jobs/{name}/runs`
// job by job (at most 80). Runs are cached per job and refetched only after a new finish.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { toCivil, viewerZone } from '../../../dashboard/engine.ts';
import {
  activityRuns,
  bucketLabel,
  bucketRuns,
  bucketSpanText,
  HEAT_BUCKETS,
  HEAT_MAX_JOBS,
  HEAT_WINDOWS,
  type HeatRun,
  type HeatWindow,
  heatJobs,
  heatLevel,
  runsSignature,
  staleRuns,
} from '../../../dashboard/heat.ts';
import type { ApiActivity, ApiJob, ApiRuns } from '../../../dashboard/types.ts';
import { type Api, HttpError } from '../../io/api.ts';
import { usePref } from '../../io/hooks.ts';

const WINDOWS = Object.keys(HEAT_WINDOWS) as HeatWindow[];
const PARALLEL = 4;

/** Kept across openings of the view: a job's runs are fetched again only after it finished another run. */
const runsCache = new Map<string, { sig: string; runs: HeatRun[] }>();
/** Set once the daemon answered `/activity` with 404 (an older daemon): ask job by job from then on. */
let noActivityRoute = false;

export function HeatView({
  jobs,
  now,
  api,
  onOpen,
}: {
  jobs: readonly ApiJob[];
  now: number;
  api: Api;
  onOpen(name: string): void;
}) {
  const [win, setWin] = usePref<HeatWindow>('heatWindow', '24h', WINDOWS);
  const [version, setVersion] = useState(0);
  const [loading, setLoading] = useState(0);
  const shown = useMemo(() => heatJobs(jobs), [jobs]);
  const zone = useMemo(viewerZone, []);

  useEffect(() => {
    let live = true;
    const todo = staleRuns(shown, runsCache);
    if (todo.length === 0) return;
    const sigs = new Map(shown.map((j) => [j.name, runsSignature(j)]));
    setLoading(todo.length);
    const whole = async (): Promise<boolean> => {
      if (noActivityRoute) return false;
      try {
        const all = activityRuns(await api.json<ApiActivity>('/activity'), todo);
        for (const [name, runs] of all) runsCache.set(name, { sig: sigs.get(name) ?? '', runs });
        return true;
      } catch (e) {
        if (e instanceof HttpError && e.status === 404) noActivityRoute = true;
        return false;
      }
    };
    let next = 0;
    const worker = async (): Promise<void> => {
      while (live && next < todo.length) {
        const name = todo[next++]!;
        try {
          const d = await api.json<ApiRuns>(`/jobs/${encodeURIComponent(name)}/runs`);
          runsCache.set(name, { sig: sigs.get(name) ?? '', runs: d.runs });
        } catch {
          // a job removed between polls: drawn empty
        }
        if (live) setLoading((n) => n - 1);
      }
    };
    void whole()
      .then((done) => (done ? undefined : Promise.all(Array.from({ length: PARALLEL }, worker))))
      .then(() => {
        if (!live) return;
        setLoading(0);
        setVersion((v) => v + 1);
      });
    return () => {
      live = false;
    };
  }, [shown, api]);

  // The window ends at the next whole minute, so a run that finished this minute is counted.
  const minute = Math.ceil(now / 60_000) * 60_000;
  const windowMs = HEAT_WINDOWS[win];
  const rows = useMemo(
    () =>
      shown.map((j) => ({
        job: j,
        cells: bucketRuns(runsCache.get(j.name)?.runs ?? [], minute, windowMs),
        loaded: runsCache.has(j.name),
      })),
    [shown, minute, windowMs, version],
  );
  const max = Math.max(0, ...rows.flatMap((r) => r.cells.map((c) => c.runs)));
  const total = rows.reduce((n, r) => n + r.cells.reduce((m, c) => m + c.runs, 0), 0);
  const heads = rows[0]?.cells ?? bucketRuns([], minute, windowMs);

  return (
    <section class="card heat" aria-labelledby="heat-title" data-testid="heat">
      <div class="card-head">
        <h2 id="heat-title" class="card-title">
          <span aria-hidden="true">┌─ </span>Activity heatmap
        </h2>
        <fieldset class="segmented">
          <legend class="sr-only">Window</legend>
          {WINDOWS.map((w) => (
            <button
              key={w}
              type="button"
              class={win === w ? 'is-on' : ''}
              aria-pressed={win === w}
              onClick={() => setWin(w)}
              data-testid={`heat-${w}`}
            >
              {w}
            </button>
          ))}
        </fieldset>
        <span class="card-meta" data-testid="heat-meta">
          {total} runs · {rows.length} jobs
          {jobs.length > HEAT_MAX_JOBS ? ` (first ${HEAT_MAX_JOBS} of ${jobs.length})` : ''} · {HEAT_BUCKETS}{' '}
          buckets of {bucketSpanText(windowMs / HEAT_BUCKETS)}
          {loading > 0 ? ` · loading ${loading}…` : ''}
        </span>
      </div>
      {rows.length === 0 ? (
        <p class="empty">No jobs configured.</p>
      ) : (
        <div class="heat-wrap">
          <table class="heatgrid" data-testid="heat-grid">
            <caption class="sr-only">
              Finished runs per job in {HEAT_BUCKETS} buckets over the last {win}, browser time
            </caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                {heads.map((c, i) => (
                  <th key={c.from} scope="col" class="hg-head">
                    {i % 6 === 0 ? (
                      bucketLabel(toCivil(zone, c.from), win)
                    ) : (
                      <span class="sr-only">{bucketLabel(toCivil(zone, c.from), win)}</span>
                    )}
                  </th>
                ))}
                <th scope="col" class="hg-total">
                  Runs
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => {
                const sum = r.cells.reduce((n, c) => n + c.runs, 0);
                return (
                  <tr
                    key={r.job.name}
                    data-job={r.job.name}
                    data-runs={sum}
                    class={r.job.enabled ? '' : 'is-off'}
                  >
                    <th scope="row">
                      <button type="button" class="linklike" onClick={() => onOpen(r.job.name)}>
                        {r.job.name}
                      </button>
                    </th>
                    {r.cells.map((c) => (
                      <td
                        key={c.from}
                        class={`hg-cell heat-${heatLevel(c.runs, max)}${c.failures > 0 ? ' has-fail' : ''}`}
                        title={`${bucketLabel(toCivil(zone, c.from), '7d')} · ${c.runs} runs${c.failures ? `, ${c.failures} failed` : ''}`}
                      />
                    ))}
                    <td class="hg-total">{r.loaded ? sum : '…'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <p class="muted small">
            From each job's retained runs (the newest 50). Red edge: a bucket holds a failed or interrupted
            run.
          </p>
        </div>
      )}
    </section>
  );
}
