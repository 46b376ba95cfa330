// The Status cell: a coloured glyph + label per derived status (spec 06 §9.2), plus retry / reboot chips.

import type { JSX } from 'preact';
import { STATUS_GLYPH } from '../../dashboard/health.ts';
import { pausedChip, pausedTitle } from '../../dashboard/paused.ts';
import { overdueChecks, overdueTitle } from '../../dashboard/sla.ts';
import { type JobStatus, STATUS_LABEL } from '../../dashboard/status.ts';
import type { ApiJob } from '../../dashboard/types.ts';

export function StatusBadge({ status }: { status: JobStatus }) {
  return (
    <span class={`status status-${status}`}>
      <span class="status-glyph" aria-hidden="true">
        {STATUS_GLYPH[status]}
      </span>
      {STATUS_LABEL[status]}
    </span>
  );
}

/** Extra chips under the badge: interrupted run, armed retry, SLA breach (spec 09 §2.8), pending @reboot. */
export function StatusChips({ job }: { job: ApiJob }) {
  const chips: JSX.Element[] = [];
  if (job.last_run?.outcome === 'unknown') {
    chips.push(
      <span key="int" class="chip chip-warn" title="The daemon stopped while this job was running">
        ⚠ interrupted
      </span>,
    );
  }
  if (job.retry) {
    const max = job.retry.maxAttempts === null ? '∞' : job.retry.maxAttempts;
    chips.push(
      <span key="retry" class="chip chip-warn" title="A retry is armed">
        ↻ attempt {job.retry.attempt}/{max}
      </span>,
    );
  }
  if (job.paused) {
    chips.push(
      <span key="paused" class="chip chip-paused" title={pausedTitle(job.paused)}>
        ⏸ {pausedChip(job.paused)}
      </span>,
    );
  }
  const overdue = overdueChecks(job);
  if (overdue) {
    chips.push(
      <span
        key="late"
        class="chip chip-warn chip-overdue"
        title={overdueTitle(overdue)}
        data-testid="overdue"
      >
        ⚠ overdue
      </span>,
    );
  }
  if (job.rebootPending) {
    chips.push(
      <span key="boot" class="chip" title="@reboot run not done yet">
        ⏻ boot pending
      </span>,
    );
  }
  return chips.length === 0 ? null : <span class="chips">{chips}</span>;
}
