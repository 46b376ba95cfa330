// History tab: `/jobs/{name}/runs` — stats grid, duration bars and the run table (newest first).
import { useEffect, useState } from 'preact/hooks';
import { rateTone } from '../../../dashboard/columns.ts';
import { errorText, formatAge, formatDuration, formatPercent, parseIso } from '../../../dashboard/format.ts';
import type { ApiJob, ApiRun, ApiRuns } from '../../../dashboard/types.ts';
import type { Api } from '../../io/api.ts';
import { ExitBadge } from '../board/JobRow.tsx';

export function HistoryTab({ job, api, now }: { job: ApiJob; api: Api; now: number }) {
  const [data, setData] = useState<ApiRuns | null>(null);
  const [error, setError] = useState<string | null>(null);
  const finished = job.last_run?.finished_at ?? null;
  useEffect(() => {
    let live = true;
    api
      .json<ApiRuns>(`/jobs/${encodeURIComponent(job.name)}/runs`)
      .then((d) => {
        if (live) {
          setData(d);
          setError(null);
        }
      })
      .catch((err: unknown) => {
        if (live) setError(errorText(err));
      });
    return () => {
      live = false;
    };
  }, [job.name, finished]);

  if (error !== null && data === null) return <p class="empty">Could not load the run history: {error}</p>;
  if (data === null) return <p class="empty">loading…</p>;
  const st = data.stats;
  if (data.runs.length === 0) {
    return <p class="empty">No finished runs yet. Runs appear here as they finish (up to the last 50).</p>;
  }
  const runs = data.runs.slice().reverse();
  return (
    <div class="history">
      <div class="stats">
        <Stat label="Runs" value={String(st.total)} />
        <Stat label="Success rate" value={formatPercent(st.success_rate)} tone={rateTone(st.success_rate)} />
        <Stat label="OK / Fail" value={`${st.success} / ${st.failure}`} />
        <Stat label="Avg" value={formatDuration(st.avg_duration)} />
        <Stat label="Min" value={formatDuration(st.min_duration)} />
        <Stat label="Max" value={formatDuration(st.max_duration)} />
      </div>
      <DurationBars runs={data.runs} />
      <table class="runs">
        <thead>
          <tr>
            <th scope="col">Outcome</th>
            <th scope="col">Exit</th>
            <th scope="col">Started</th>
            <th scope="col">Finished</th>
            <th scope="col">Took</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r, i) => {
            const at = parseIso(r.finished_at);
            return (
              <tr key={`${r.finished_at}-${i}`}>
                <td>
                  <span class={`outcome outcome-${r.outcome}`}>
                    <span class="dot" aria-hidden="true" />
                    {r.outcome}
                  </span>
                </td>
                <td>
                  <ExitBadge code={r.exit_code} />
                </td>
                <td class="muted">{r.started_at ? r.started_at.replace('T', ' ').slice(0, 19) : '—'}</td>
                <td title={r.finished_at}>{at === null ? '—' : formatAge(now - at)}</td>
                <td>{formatDuration(r.duration)}</td>
                <td class="reason" title={r.fail_reason ?? ''}>
                  {r.fail_reason ?? ''}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function Stat({ label, value, tone }: { label: string; value: string; tone?: string }) {
  return (
    <div class="stat">
      <div class="stat-label">{label}</div>
      <div class={`stat-value${tone ? ` tone-${tone}` : ''}`}>{value}</div>
    </div>
  );
}

/** One bar per retained run, oldest left, height = duration. */
function DurationBars({ runs }: { runs: readonly ApiRun[] }) {
  const W = 600;
  const H = 56;
  const max = Math.max(0, ...runs.map((r) => r.duration ?? 0));
  const pitch = W / Math.max(runs.length, 20);
  return (
    <svg
      class="durbars"
      viewBox={`0 0 ${W} ${H}`}
      preserveAspectRatio="none"
      role="img"
      aria-label="Run durations"
    >
      {runs.map((r, i) => {
        const h = max > 0 ? Math.max(2, ((r.duration ?? 0) / max) * H) : 2;
        return (
          <rect
            key={i}
            class={`spark-${r.outcome}`}
            x={W - (runs.length - i) * pitch}
            y={H - h}
            width={Math.max(1, pitch - 2)}
            height={h}
          >
            <title>{`${r.outcome} · ${formatDuration(r.duration)}`}</title>
          </rect>
        );
      })}
    </svg>
  );
}
