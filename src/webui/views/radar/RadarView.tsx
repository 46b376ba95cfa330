// ⌁ radar: the next eight fires across all enabled jobs with live countdowns, and a ten-minute track with one
// marker per fire — computed in the browser by the bundled engine, so it moves every second without polling.
import { useMemo } from 'preact/hooks';
import { compileJob, toCivil, viewerZone } from '../../../dashboard/engine.ts';
import { formatCivil, formatCountdown } from '../../../dashboard/format.ts';
import { buildRadar, RADAR_WINDOW_MS, trackPosition } from '../../../dashboard/radar.ts';
import type { ApiJob } from '../../../dashboard/types.ts';

const TICKS = [0, 2, 4, 6, 8, 10];

export function RadarView({
  jobs,
  now,
  onOpen,
}: {
  jobs: readonly ApiJob[];
  now: number;
  onOpen(name: string): void;
}) {
  const compiled = useMemo(
    () => jobs.map((j) => ({ name: j.name, enabled: j.enabled, compiled: compileJob(j) })),
    [jobs],
  );
  const second = Math.floor(now / 1000) * 1000;
  const radar = useMemo(() => buildRadar(compiled, second), [compiled, second]);
  const byName = useMemo(() => new Map(jobs.map((j) => [j.name, j])), [jobs]);
  const zone = useMemo(viewerZone, []);
  return (
    <section class="card radar" aria-labelledby="radar-title" data-testid="radar">
      <div class="card-head">
        <h2 id="radar-title" class="card-title">
          <span aria-hidden="true">┌─ </span>Next-fire radar
        </h2>
        <span class="card-meta">
          {radar.scheduled} scheduled jobs · {radar.track.length} fires in the next 10 min · browser time (
          {zone})
        </span>
      </div>
      {radar.next.length === 0 ? (
        <p class="empty">no enabled job has a future fire</p>
      ) : (
        <>
          <ol class="radar-list" aria-label="Next fires">
            {radar.next.map((f, i) => {
              const job = byName.get(f.name);
              const at = formatCivil(toCivil(zone, f.at), true).slice(11);
              const left = f.at - now;
              return (
                <li key={f.name} class="radar-row" data-job={f.name} data-at={f.at}>
                  <span class="radar-rank" aria-hidden="true">
                    {i + 1}
                  </span>
                  <span class="radar-swatch" style={{ '--hue': String(f.hue) }} aria-hidden="true" />
                  <button type="button" class="radar-name linklike" onClick={() => onOpen(f.name)}>
                    {f.name}
                  </button>
                  <code class="sched">{job?.schedule}</code>
                  <time class="radar-at muted" dateTime={new Date(f.at).toISOString()}>
                    {at}
                  </time>
                  <span class={`radar-count${left < 10_000 ? ' is-soon' : ''}`} data-testid="radar-countdown">
                    {left <= 0 ? 'due' : `in ${formatCountdown(left, true)}`}
                  </span>
                  {(radar.windowFires.get(f.name) ?? 0) > 1 && (
                    <span class="radar-more muted">×{radar.windowFires.get(f.name)} / 10 min</span>
                  )}
                </li>
              );
            })}
          </ol>
          <div
            class="radar-track"
            role="img"
            aria-label={`${radar.track.length} fires in the next ten minutes`}
          >
            <div class="radar-lane">
              {radar.track.map((f) => (
                <span
                  key={`${f.name}-${f.at}`}
                  class="radar-mark"
                  style={{ left: `${trackPosition(f.at, now) * 100}%`, '--hue': String(f.hue) }}
                  title={`${f.name} · in ${formatCountdown(f.at - now, true)}`}
                  data-job={f.name}
                />
              ))}
            </div>
            <div class="radar-ticks" aria-hidden="true">
              {TICKS.map((m) => (
                <span key={m} style={{ left: `${(m * 60_000 * 100) / RADAR_WINDOW_MS}%` }}>
                  {m === 0 ? 'now' : `+${m}m`}
                </span>
              ))}
            </div>
          </div>
        </>
      )}
    </section>
  );
}
