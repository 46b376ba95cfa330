// ▥ pressure: fires per minute of the day over the next 24 h (`/schedule/pressure`), the minute-of-hour
// histogram, groups of jobs sharing one schedule (`/schedule/duplicates`) and quiet slots to move a job to
// (`/schedule/suggest`), in UTC or the viewer's zone. Refreshed every 60 s while open.
import { useMemo, useState } from 'preact/hooks';
import { viewerZone } from '../../../dashboard/engine.ts';
import { errorText } from '../../../dashboard/format.ts';
import {
  type ApiDuplicates,
  type ApiPressure,
  type ApiSuggest,
  busiestCell,
  cellLabel,
  cellShade,
  frameQuery,
  histogram,
  type PressureFrame,
  shadeRange,
} from '../../../dashboard/pressure.ts';
import type { Api } from '../../io/api.ts';
import { copyText, usePolling, usePref } from '../../io/hooks.ts';
import { openSandbox } from '../sandbox/Sandbox.tsx';

const REFRESH_MS = 60_000;
const HOURS = Array.from({ length: 24 }, (_, h) => h);
const MINUTES = Array.from({ length: 60 }, (_, m) => m);

export function PressureView({ api, onOpen }: { api: Api; onOpen(name: string): void }) {
  const zone = useMemo(viewerZone, []);
  const [frame, setFrame] = usePref<PressureFrame>('pressureFrame', 'utc', ['utc', 'local']);
  const [data, setData] = useState<ApiPressure | null>(null);
  const [dups, setDups] = useState<ApiDuplicates | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [suggestion, setSuggestion] = useState<ApiSuggest | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const query = frameQuery(frame, zone);

  usePolling(
    async (live) => {
      try {
        const [p, d] = await Promise.all([
          api.json<ApiPressure>(`/schedule/pressure${query ? `?${query}` : ''}`),
          api.json<ApiDuplicates>('/schedule/duplicates'),
        ]);
        if (!live()) return;
        setData(p);
        setDups(d);
        setError(null);
      } catch (err) {
        if (live()) setError(errorText(err));
      }
    },
    REFRESH_MS,
    [api, query],
  );

  const suggest = async (period: 'hourly' | 'daily'): Promise<void> => {
    try {
      setSuggestion(
        await api.json<ApiSuggest>(`/schedule/suggest?period=${period}${query ? `&${query}` : ''}`),
      );
    } catch (err) {
      setError(errorText(err));
    }
  };
  const copy = async (expr: string): Promise<void> => {
    if (await copyText(expr)) {
      setCopied(expr);
      window.setTimeout(() => setCopied(null), 1400);
    }
  };

  const top = useMemo(() => (data ? busiestCell(data.grid) : null), [data]);
  // Jobs per minute, not fires: a per-second job adds 60 fires to every minute and would flatten the bars.
  const bars = useMemo(() => (data ? histogram(data.by_minute_jobs) : []), [data]);
  const range = useMemo(() => (data ? shadeRange(data.grid) : { min: 0, max: 0 }), [data]);
  const frameName = frame === 'utc' ? 'UTC' : zone;

  return (
    <section class="card pressure" aria-labelledby="pressure-title" data-testid="pressure">
      <div class="card-head">
        <h2 id="pressure-title" class="card-title">
          <span aria-hidden="true">┌─ </span>Schedule pressure
        </h2>
        <fieldset class="segmented">
          <legend class="sr-only">Time frame</legend>
          {(['utc', 'local'] as const).map((f) => (
            <button
              key={f}
              type="button"
              class={frame === f ? 'is-on' : ''}
              aria-pressed={frame === f}
              onClick={() => {
                setFrame(f);
                setSuggestion(null);
              }}
              data-testid={`pressure-${f}`}
            >
              {f === 'utc' ? 'UTC' : `local (${zone})`}
            </button>
          ))}
        </fieldset>
        {data && (
          <span class="card-meta" data-testid="pressure-meta">
            {data.total_fires} fires · {data.jobs} jobs · next {data.hours} h · {data.timezone}
          </span>
        )}
      </div>
      {error !== null && <p class="empty">Could not load the schedule analysis: {error}</p>}
      {data === null ? (
        error === null && <p class="empty">loading…</p>
      ) : (
        <div class="pressure-body">
          <div class="pressure-summary">
            <span class="pfact">
              busiest cell{' '}
              <b data-testid="pressure-busiest">
                {top ? `${cellLabel(top.hour, top.minute)} · ${top.fires} fires` : '—'}
              </b>
            </span>
            <span class="pfact">
              busiest minute of the hour{' '}
              <b>
                :{String(data.busiest_minute.minute).padStart(2, '0')} · {data.busiest_minute.jobs} jobs
              </b>
            </span>
            <span class="pfact">
              empty minutes <b>{data.empty_minutes.length}</b> / 60
            </span>
            {(data.excluded.disabled > 0 || data.excluded.reboot > 0) && (
              <span class="pfact muted">
                not counted: {data.excluded.disabled} disabled, {data.excluded.reboot} @reboot
              </span>
            )}
          </div>
          <div class="pgrid-wrap">
            <table class="pgrid" data-testid="pressure-grid">
              <caption class="sr-only">
                Fires per minute of the day, next {data.hours} hours, {frameName}
              </caption>
              <thead>
                <tr>
                  <th scope="col">
                    <span class="sr-only">hour</span>
                  </th>
                  {MINUTES.map((m) => (
                    <th key={m} scope="col" class="pg-min">
                      {m % 10 === 0 ? `:${String(m).padStart(2, '0')}` : <span class="sr-only">:{m}</span>}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {HOURS.map((h) => (
                  <tr key={h}>
                    <th scope="row" class="pg-hour">
                      {String(h).padStart(2, '0')}
                    </th>
                    {MINUTES.map((m) => {
                      const fires = data.grid[h]?.[m] ?? 0;
                      return (
                        <td
                          key={m}
                          class={`pg-cell shade-${cellShade(fires, range)}`}
                          title={`${cellLabel(h, m)} ${frameName} · ${fires} fires`}
                          data-fires={fires}
                        />
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
            <div class="pg-legend" aria-hidden="true">
              fewer <span class="pg-cell shade-1" /> <span class="pg-cell shade-2" />{' '}
              <span class="pg-cell shade-3" /> <span class="pg-cell shade-4" />{' '}
              <span class="pg-cell shade-5" /> more
            </div>
          </div>
          <div class="pressure-side">
            <h3 class="subhead">Jobs per minute of the hour</h3>
            <div
              class="phist"
              role="img"
              aria-label="Jobs firing in each minute of the hour"
              data-testid="pressure-hist"
            >
              {bars.map((b, m) => (
                <span
                  key={m}
                  class={`phist-bar${m === data.busiest_minute.minute ? ' is-peak' : ''}`}
                  style={{ height: `${Math.max(b > 0 ? 4 : 0, b * 100)}%` }}
                  title={`:${String(m).padStart(2, '0')} · ${data.by_minute_fires[m]} fires · ${data.by_minute_jobs[m]} jobs`}
                />
              ))}
            </div>
            <div class="phist-axis" aria-hidden="true">
              <span>:00</span>
              <span>:15</span>
              <span>:30</span>
              <span>:45</span>
              <span>:59</span>
            </div>
            <h3 class="subhead">Busiest cells</h3>
            <ol class="ptop">
              {data.top_cells.slice(0, 5).map((c) => (
                <li key={`${c.hour}:${c.minute}`}>
                  <b>{cellLabel(c.hour, c.minute)}</b> <span class="muted">{c.fires} fires ·</span>{' '}
                  {c.jobs.slice(0, 4).map((name) => (
                    <button key={name} type="button" class="linklike pjob" onClick={() => onOpen(name)}>
                      {name}
                    </button>
                  ))}
                  {c.jobs.length > 4 && <span class="muted"> +{c.jobs.length - 4}</span>}
                </li>
              ))}
            </ol>
            <h3 class="subhead">Suggest a slot</h3>
            <div class="psuggest">
              <button
                type="button"
                class="btn"
                onClick={() => suggest('hourly')}
                data-testid="suggest-hourly"
              >
                ◎ hourly slot
              </button>
              <button type="button" class="btn" onClick={() => suggest('daily')} data-testid="suggest-daily">
                ◎ daily slot
              </button>
            </div>
            {suggestion && (
              <div class="psuggestion" aria-live="polite" data-testid="suggestion">
                {[suggestion, ...suggestion.alternatives].map((s, i) => (
                  <div key={s.expression} class="pslot">
                    <code class="sched">{s.expression}</code>
                    <span class="muted" title="fires in that slot over the next 24 h">
                      {i === 0 ? 'best' : 'or'} · {s.fires_in_window}
                    </span>
                    <button type="button" class="btn btn-small" onClick={() => copy(s.expression)}>
                      {copied === s.expression ? 'copied' : 'copy'}
                    </button>
                    <button
                      type="button"
                      class="btn btn-small"
                      onClick={() => openSandbox(s.expression, suggestion.timezone)}
                    >
                      sandbox
                    </button>
                  </div>
                ))}
                <p class="muted small">{suggestion.hash_hint}</p>
              </div>
            )}
          </div>
          <div class="pdups">
            <h3 class="subhead">
              Duplicate schedules{' '}
              <span class="muted">({dups?.groups.length ?? 0} groups of jobs firing together)</span>
            </h3>
            {dups && dups.groups.length > 0 ? (
              <table class="ptable" data-testid="duplicates">
                <thead>
                  <tr>
                    <th scope="col">Schedule</th>
                    <th scope="col">Zone</th>
                    <th scope="col">Jobs</th>
                    <th scope="col">Members</th>
                  </tr>
                </thead>
                <tbody>
                  {dups.groups.map((g) => (
                    <tr key={`${g.expression}|${g.timezone}`} data-count={g.count}>
                      <td>
                        <code class="sched">{g.expression}</code> <span class="muted">{g.description}</span>
                      </td>
                      <td>{g.timezone}</td>
                      <td>{g.count}</td>
                      <td>
                        {g.jobs.map((name) => (
                          <button key={name} type="button" class="linklike pjob" onClick={() => onOpen(name)}>
                            {name}
                          </button>
                        ))}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p class="empty">no two enabled jobs share a schedule</p>
            )}
          </div>
        </div>
      )}
    </section>
  );
}
