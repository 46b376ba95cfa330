// ◫ week: 7 days × 24 h in the viewer's zone, one hue-keyed chip per fire from the engine; jobs that fire too
// often to chart are summarised in a "background hum" strip under the grid.
import { useMemo, useState } from 'preact/hooks';
import { compileJob, toCivil, viewerZone } from '../../../dashboard/engine.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import { buildWeek, HUM_THRESHOLD, localMidnight } from '../../../dashboard/week.ts';
import type { Api } from '../../io/api.ts';

const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const HOURS = Array.from({ length: 24 }, (_, h) => h);

const pad2 = (n: number): string => String(n).padStart(2, '0');

export function WeekCalendar({
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
  const [offset, setOffset] = useState(0);
  const zone = useMemo(viewerZone, []);
  const today = localMidnight(zone, now);
  // Rebuild when the schedules change, the week moves or the day rolls over — not on every poll.
  const signature = useMemo(
    () =>
      jobs
        .map(
          (j) => `${j.name}|${j.schedule}|${j.schedule_resolved ?? ''}|${j.timezone}|${j.utc}|${j.enabled}`,
        )
        .join('\n'),
    [jobs],
  );
  const model = useMemo(
    () =>
      buildWeek(
        jobs.map((j) => ({ name: j.name, enabled: j.enabled, compiled: compileJob(j) })),
        { nowMs: now, zone, weekOffset: offset },
      ),
    [signature, offset, today, zone],
  );
  const nowCivil = toCivil(zone, now);
  const nowMinute = Math.floor((nowCivil % 86_400_000) / 60_000);
  const first = model.days[0]!;
  const last = model.days[6]!;
  const range = `${first.date.slice(8)} ${MONTHS[Number(first.date.slice(5, 7)) - 1]} – ${last.date.slice(8)} ${
    MONTHS[Number(last.date.slice(5, 7)) - 1]
  } ${last.date.slice(0, 4)}`;
  const empty = model.fires === 0 && model.hum.length === 0;
  return (
    <section class="card week" aria-labelledby="week-title" data-testid="week">
      <div class="card-head">
        <h2 id="week-title" class="card-title">
          <span aria-hidden="true">┌─ </span>Week
        </h2>
        <fieldset class="week-nav">
          <legend class="sr-only">Move the week</legend>
          <button type="button" class="btn" onClick={() => setOffset(offset - 1)} aria-label="Previous week">
            ‹
          </button>
          <button type="button" class="btn" onClick={() => setOffset(0)} disabled={offset === 0}>
            this week
          </button>
          <button
            type="button"
            class="btn"
            onClick={() => setOffset(offset + 1)}
            aria-label="Next week"
            data-testid="week-next"
          >
            ›
          </button>
        </fieldset>
        <span class="week-range">{range}</span>
        <span class="card-meta" data-testid="week-meta">
          {model.fires} fires + {model.hum.length} frequent jobs / 7 days · browser time ({zone})
        </span>
        <a class="icslink" href={api.icsHref('/calendar.ics')} download="cronstable.ics">
          ⤓ .ics feed
        </a>
      </div>
      {empty ? (
        <p class="empty">no scheduled fires in these 7 days</p>
      ) : (
        <div class="weekgrid">
          <div class="wk-gutter" aria-hidden="true">
            <div class="wk-dayhead" />
            <div class="wk-hours">
              {HOURS.map((h) => (
                <div key={h} class="wk-hour">
                  {h % 6 === 0 ? pad2(h) : ''}
                </div>
              ))}
            </div>
          </div>
          {model.days.map((day, i) => (
            <section
              key={day.date}
              class={`wk-day${day.today ? ' is-today' : ''}${day.weekday === 0 || day.weekday === 6 ? ' is-weekend' : ''}`}
              aria-label={`${DAY_NAMES[day.weekday]} ${day.date}${day.today ? ' (today)' : ''}`}
              data-date={day.date}
            >
              <div class="wk-dayhead">
                <span class="wk-dow">{DAY_NAMES[day.weekday]}</span>
                <span class="wk-date">
                  {Number(day.date.slice(8))} {MONTHS[Number(day.date.slice(5, 7)) - 1]}
                </span>
                <span class="wk-count">{day.chips.length + day.more || ''}</span>
              </div>
              <div class="wk-body">
                {HOURS.map((h) => (
                  <div key={h} class={`wk-line${h % 6 === 0 ? ' wk-line-major' : ''}`} />
                ))}
                {day.today && offset === 0 && (
                  <div class="wk-now" style={{ top: `${(nowMinute / 1440) * 100}%` }} aria-hidden="true" />
                )}
                {day.chips.map((chip) => {
                  const t = `${pad2(Math.floor(chip.minute / 60))}:${pad2(chip.minute % 60)}`;
                  const width = 100 / chip.slots;
                  return (
                    <button
                      key={`${chip.name}-${chip.at}`}
                      type="button"
                      class={`wk-chip${chip.at < now ? ' is-past' : ''}`}
                      style={{
                        top: `${(chip.minute / 1440) * 100}%`,
                        left: `${chip.slot * width}%`,
                        width: `calc(${width}% - 2px)`,
                        '--hue': String(chip.hue),
                      }}
                      title={`${chip.name} · ${day.date} ${t}`}
                      aria-label={`${chip.name} at ${t}`}
                      data-job={chip.name}
                      data-day={i}
                      onClick={() => onOpen(chip.name)}
                    >
                      <span class="wk-chip-time">{t}</span> {chip.name}
                    </button>
                  );
                })}
                {day.more > 0 && <div class="wk-more">+{day.more} more</div>}
              </div>
            </section>
          ))}
        </div>
      )}
      {model.hum.length > 0 && (
        <div class="hum" data-testid="hum">
          <span class="hum-label">
            background hum{' '}
            <span class="muted">(too frequent to chart: more than {HUM_THRESHOLD} fires a week)</span>
          </span>
          <div class="hum-chips">
            {model.hum.map((h) => (
              <button
                key={h.name}
                type="button"
                class="hum-chip"
                style={{ '--hue': String(h.hue) }}
                title={h.description}
                data-job={h.name}
                onClick={() => onOpen(h.name)}
              >
                {h.name} <span class="muted">{h.description.toLowerCase()}</span>
              </button>
            ))}
          </div>
        </div>
      )}
    </section>
  );
}
