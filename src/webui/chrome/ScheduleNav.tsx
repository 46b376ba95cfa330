// Toolbar buttons of the schedule and state views (⌁ radar, ▥ pressure, ▦ heat, ⛁ state) and the sandbox.

import type { Route } from '../../dashboard/route.ts';
import { SCHEDULE_VIEWS, type ScheduleView } from '../../dashboard/scheduleviews.ts';
import { openSandbox } from '../views/sandbox/Sandbox.tsx';

const LABEL: Record<ScheduleView, string> = {
  radar: '⌁ radar',
  pressure: '▥ pressure',
  heat: '▦ heat',
  state: '⛁ state',
};

const TITLE: Record<ScheduleView, string> = {
  radar: 'Next fires across all jobs, with a 10-minute track',
  pressure: 'Fires per minute of the day, duplicate schedules, quiet slots',
  heat: 'Runs per job over the last 6 h / 24 h / 7 d',
  state: 'Read-only view of the durable state store',
};

export function ScheduleNav({
  view,
  stateEnabled,
  onView,
}: {
  view: Route['view'];
  stateEnabled: boolean;
  onView(view: Route['view']): void;
}) {
  return (
    <nav class="viewnav" aria-label="Schedule views">
      {SCHEDULE_VIEWS.filter((v) => v !== 'state' || stateEnabled).map((v) => (
        <button
          key={v}
          type="button"
          class={`btn btn-view${view === v ? ' is-on' : ''}`}
          aria-pressed={view === v}
          title={TITLE[v]}
          onClick={() => onView(view === v ? 'jobs' : v)}
          data-testid={`view-${v}`}
        >
          {LABEL[v]}
        </button>
      ))}
      <button
        type="button"
        class="btn btn-view"
        title="Validate, describe and preview any cron expression"
        onClick={() => openSandbox()}
        data-testid="sandbox-button"
      >
        ✎ sandbox
      </button>
    </nav>
  );
}
