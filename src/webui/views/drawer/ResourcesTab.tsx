// Resources tab of the job drawer: `/jobs/{name}/resources`, refetched every 1/2/5/10 s (default 2 s) while the
// tab is open — live CPU and RSS of each running instance with its series, then the recent monitored runs.
import { useEffect, useState } from 'preact/hooks';
import { errorText, formatDuration } from '../../../dashboard/format.ts';
import {
  type ApiJobResources,
  type ApiLiveResources,
  chartPoints,
  cpuCeiling,
  formatBytes,
  RESOURCE_INTERVALS,
  type ResourceInterval,
} from '../../../dashboard/resources.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import type { Api } from '../../io/api.ts';
import { usePolling, usePref } from '../../io/hooks.ts';

const W = 560;
const H = 90;

export function ResourcesTab({ job, api }: { job: ApiJob; api: Api }) {
  const [every, setEvery] = usePref<ResourceInterval>('resourcesEvery', '2', RESOURCE_INTERVALS);
  const [data, setData] = useState<ApiJobResources | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fetches, setFetches] = useState(0);
  usePolling(
    async (live) => {
      try {
        const d = await api.json<ApiJobResources>(`/jobs/${encodeURIComponent(job.name)}/resources`);
        if (!live()) return;
        setData(d);
        setError(null);
        setFetches((n) => n + 1);
      } catch (err) {
        if (live()) setError(errorText(err));
      }
    },
    Number(every) * 1000,
    [job.name, every],
  );

  return (
    <div class="resources" data-testid="resources" data-fetches={fetches}>
      <div class="res-head">
        <span>
          {data ? (
            data.monitored ? (
              <>
                <b class="tone-good">monitored</b>{' '}
                <span class="muted">· sampled every {data.interval} s</span>
              </>
            ) : (
              <span class="muted">
                not monitored — set <code>monitorResources: true</code> on the job to sample its CPU and
                memory
              </span>
            )
          ) : null}
        </span>
        <label class="select">
          <span class="muted">refresh</span>
          <select
            value={every}
            onChange={(e) => setEvery((e.currentTarget as HTMLSelectElement).value as ResourceInterval)}
            data-testid="resources-every"
          >
            {RESOURCE_INTERVALS.map((c) => (
              <option key={c} value={c}>
                {c}s
              </option>
            ))}
          </select>
        </label>
      </div>
      {error !== null && <p class="empty">Could not load the resources: {error}</p>}
      {data === null ? (
        error === null && <p class="empty">loading…</p>
      ) : (
        <>
          {data.live.length === 0 ? (
            <p class="empty" data-testid="resources-idle">
              {job.running ? 'Running; the first sample is on its way.' : 'Not running now.'}
            </p>
          ) : (
            data.live.map((l) => <LiveRun key={`${l.pid}-${l.started_at}`} run={l} />)
          )}
          {data.runs.length > 0 && (
            <table class="runs" data-testid="resources-runs">
              <caption class="sr-only">Recent monitored runs</caption>
              <thead>
                <tr>
                  <th scope="col">Finished</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">CPU</th>
                  <th scope="col">Peak RSS</th>
                  <th scope="col">Samples</th>
                </tr>
              </thead>
              <tbody>
                {data.runs
                  .slice()
                  .reverse()
                  .map((r, i) => (
                    <tr key={`${r.finished_at}-${i}`}>
                      <td class="muted">
                        {r.finished_at ? String(r.finished_at).replace('T', ' ').slice(0, 19) : '—'}
                      </td>
                      <td>{r.outcome ?? '—'}</td>
                      <td>{formatDuration(r.resources?.cpu_total_seconds ?? null)}</td>
                      <td>{formatBytes(r.resources?.max_rss_bytes ?? null)}</td>
                      <td>{r.resources?.samples ?? '—'}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </div>
  );
}

/**
 * The drawer header's live CPU / memory of a running monitored job (summed over its instances), polled every 2 s
 * while the drawer is open on it.
 */
export function LiveUsage({ job, api }: { job: ApiJob; api: Api }) {
  const [usage, setUsage] = useState<{ cpu: number; rss: number } | null>(null);
  useEffect(() => setUsage(null), [job.name, job.running]);
  usePolling(
    async (live) => {
      if (!job.running) return 'pause';
      try {
        const d = await api.json<ApiJobResources>(`/jobs/${encodeURIComponent(job.name)}/resources`);
        if (!live()) return 'pause';
        if (!d.monitored) return 'pause'; // nothing to show, and nothing to poll for
        const cur = d.live.flatMap((l) => (l.current ? [l.current] : []));
        setUsage(
          cur.length === 0
            ? null
            : {
                cpu: cur.reduce((n, c) => n + c.cpu_percent, 0),
                rss: cur.reduce((n, c) => n + c.rss_bytes, 0),
              },
        );
      } catch {
        // the header simply shows no usage
      }
    },
    2000,
    [job.name, job.running],
  );
  if (usage === null) return null;
  return (
    <span class="fact" data-testid="live-usage" title="CPU and resident memory of the running process tree">
      ▮ <b>{usage.cpu.toFixed(1)}%</b> · <b>{formatBytes(usage.rss)}</b>
    </span>
  );
}

function LiveRun({ run }: { run: ApiLiveResources }) {
  const cur = run.current;
  const cpuMax = cpuCeiling(run.series, 1);
  const rssMax = Math.max(1, ...run.series.map((p) => p[2]));
  return (
    <div class="res-live" data-testid="resources-live" data-pid={run.pid ?? ''}>
      <div class="stats">
        <div class="stat">
          <div class="stat-label">pid</div>
          <div class="stat-value">{run.pid ?? '—'}</div>
        </div>
        <div class="stat">
          <div class="stat-label">cpu</div>
          <div class="stat-value rc-text-cpu" data-testid="resources-cpu">
            {cur ? `${cur.cpu_percent.toFixed(1)}%` : '—'}
          </div>
        </div>
        <div class="stat">
          <div class="stat-label">cpu time</div>
          <div class="stat-value">{cur ? formatDuration(cur.cpu_seconds) : '—'}</div>
        </div>
        <div class="stat">
          <div class="stat-label">rss</div>
          <div class="stat-value rc-text-mem" data-testid="resources-rss">
            {cur ? formatBytes(cur.rss_bytes) : '—'}
          </div>
        </div>
        <div class="stat">
          <div class="stat-label">samples</div>
          <div class="stat-value">{run.series.length}</div>
        </div>
      </div>
      {run.series.length > 1 && (
        <svg
          class="reschart"
          viewBox={`0 0 ${W} ${H}`}
          preserveAspectRatio="none"
          role="img"
          aria-label="CPU and RSS of this run"
        >
          <polyline class="rc-cpu" points={chartPoints(run.series, 1, W, H, cpuMax)} />
          <polyline class="rc-mem" points={chartPoints(run.series, 2, W, H, rssMax)} />
        </svg>
      )}
      <div class="rc-legend">
        <span class="rc-key rc-key-cpu">cpu % (0–{cpuMax})</span>{' '}
        <span class="rc-key rc-key-mem">rss (0–{formatBytes(rssMax)})</span>
      </div>
    </div>
  );
}
