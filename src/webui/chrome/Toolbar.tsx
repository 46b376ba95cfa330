// Filter box (`/`), status segments, view switch (jobs / week) and the refresh interval.
import type { Ref } from 'preact';
import type { Segment } from '../../dashboard/health.ts';
import type { Route } from '../../dashboard/route.ts';
import { REFRESH_CHOICES, type RefreshChoice } from '../../dashboard/settings.ts';
import { useAccess } from '../app/access.ts';
import { ScheduleNav } from './ScheduleNav.tsx';

const SEGMENTS: ReadonlyArray<[Segment, string]> = [
  ['all', 'all'],
  ['ok', 'ok'],
  ['fail', 'fail'],
  ['run', 'run'],
  ['off', 'off'],
];

export interface ToolbarProps {
  filter: string;
  segment: Segment;
  view: Route['view'];
  refresh: RefreshChoice;
  inputRef: Ref<HTMLInputElement>;
  onFilter(text: string): void;
  onSegment(segment: Segment): void;
  onView(view: Route['view']): void;
  onRefresh(choice: RefreshChoice): void;
  /** dag-gaps: the ⧉ dags button, passed only while `/dags` is non-empty; it shows/hides the DAG card */
  dags?: { shown: boolean; onToggle(): void };
  /** incident tools (issue 13): ≋ tail, ▭ tv and ▶ run failing */
  incident?: { failing: number; onRunFailing(): void };
  /** ui-schedule: the ⛁ state button shows only when `/state` answered with a store */
  stateEnabled?: boolean;
}

export function Toolbar(p: ToolbarProps) {
  const { control } = useAccess();
  return (
    <div class="toolbar">
      <div class="search">
        <label class="search-prompt" for="job-filter" aria-hidden="true">
          $
        </label>
        <input
          id="job-filter"
          ref={p.inputRef}
          type="search"
          value={p.filter}
          placeholder="filter jobs… (press /)"
          aria-label="Filter jobs by name, command or schedule"
          autocomplete="off"
          spellcheck={false}
          onInput={(e) => p.onFilter((e.currentTarget as HTMLInputElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              if (p.filter !== '') p.onFilter('');
              else (e.currentTarget as HTMLInputElement).blur();
            } else if (e.key === 'Enter' || e.key === 'ArrowDown') {
              (e.currentTarget as HTMLInputElement).blur();
            }
          }}
        />
      </div>
      <fieldset class="segmented">
        <legend class="sr-only">Show jobs by status</legend>
        {SEGMENTS.map(([value, label]) => (
          <button
            key={value}
            type="button"
            class={p.segment === value ? 'is-on' : ''}
            aria-pressed={p.segment === value}
            onClick={() => p.onSegment(value)}
          >
            {label}
          </button>
        ))}
      </fieldset>
      <div class="toolbar-spacer" />
      {/* ui-schedule: radar / pressure / heat / state views and the cron sandbox */}
      <ScheduleNav view={p.view} stateEnabled={p.stateEnabled === true} onView={p.onView} />
      <fieldset class="segmented">
        <legend class="sr-only">View</legend>
        <button
          type="button"
          class={p.view === 'jobs' ? 'is-on' : ''}
          aria-pressed={p.view === 'jobs'}
          onClick={() => p.onView('jobs')}
        >
          ☰ jobs
        </button>
        <button
          type="button"
          class={p.view === 'week' ? 'is-on' : ''}
          aria-pressed={p.view === 'week'}
          onClick={() => p.onView('week')}
          data-testid="week-button"
        >
          ◫ week
        </button>
      </fieldset>
      {p.dags && (
        <button
          type="button"
          class={`btn dags-toggle${p.dags.shown ? ' is-on' : ''}`}
          aria-pressed={p.dags.shown}
          onClick={p.dags.onToggle}
          title="Show or hide the DAG card"
          data-testid="dags-button"
        >
          {/* ⧉ drawn, since not every monospace font has the glyph */}
          <svg class="dags-icon" width="12" height="12" viewBox="0 0 12 12" aria-hidden="true">
            <rect x="0.5" y="0.5" width="7" height="7" />
            <rect x="4.5" y="4.5" width="7" height="7" />
          </svg>{' '}
          dags
        </button>
      )}
      {p.incident && (
        <div class="toolbar-incident">
          <button
            type="button"
            class={`btn${p.view === 'tail' ? ' is-on' : ''}`}
            aria-pressed={p.view === 'tail'}
            onClick={() => p.onView(p.view === 'tail' ? 'jobs' : 'tail')}
            data-testid="tail-button"
          >
            ≋ tail
          </button>
          <button
            type="button"
            class="btn"
            onClick={() => p.onView('tv')}
            title="Wallboard (w)"
            data-testid="tv-button"
          >
            ▭ tv
          </button>
          {control && (
            <button
              type="button"
              class="btn btn-run"
              disabled={p.incident.failing === 0}
              onClick={p.incident.onRunFailing}
              title="Start every failing job again, staggered, after a confirmation"
              data-testid="run-failing"
            >
              ▶ run failing
            </button>
          )}
        </div>
      )}
      <label class="select">
        <span class="muted">refresh</span>
        <select
          value={p.refresh}
          onChange={(e) => p.onRefresh((e.currentTarget as HTMLSelectElement).value as RefreshChoice)}
        >
          {REFRESH_CHOICES.map((c) => (
            <option key={c} value={c}>
              {c === 'paused' ? 'paused' : `${c}s`}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
