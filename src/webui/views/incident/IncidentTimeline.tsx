// The incident timeline (`i`): every job's newest finished run, newest first, with its outcome, exit code and the
// gap to the previous finish; failures of one correlated group are marked so a fleet event reads as one story.
import { useMemo, useState } from 'preact/hooks';
import { formatAge, formatDuration, formatUtcClock } from '../../../dashboard/format.ts';
import { type Correlation, incidentTimeline, signatureText } from '../../../dashboard/incident.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import { Dialog } from '../../chrome/Dialog.tsx';

const OUTCOME_TEXT: Record<string, string> = {
  success: 'ok',
  failure: 'failed',
  cancelled: 'cancelled',
  unknown: 'unknown',
};

export function IncidentTimeline({
  jobs,
  correlation,
  now,
  onOpen,
  onClose,
}: {
  jobs: readonly ApiJob[];
  correlation: Correlation | null;
  now: number;
  onOpen(name: string): void;
  onClose(): void;
}) {
  const [failuresOnly, setFailuresOnly] = useState(false);
  const all = useMemo(() => incidentTimeline(jobs, correlation ?? undefined), [jobs, correlation]);
  const entries = failuresOnly ? all.filter((e) => e.outcome !== 'success') : all;
  const failed = all.filter((e) => e.outcome === 'failure').length;
  return (
    <Dialog title="Incident timeline" onClose={onClose} wide>
      <div class="it-head">
        <span class="muted">
          newest finish per job · {all.length} job(s) · {failed} failed
        </span>
        <label class="toggle">
          <input
            type="checkbox"
            checked={failuresOnly}
            onChange={(e) => setFailuresOnly((e.currentTarget as HTMLInputElement).checked)}
            data-autofocus
          />
          problems only
        </label>
      </div>
      {entries.length === 0 ? (
        <p class="muted it-empty">No finished runs yet.</p>
      ) : (
        <ol class="it-list" data-testid="incident-timeline">
          {entries.map((e) => (
            <li key={e.name} class={`it-entry it-${e.outcome}`} data-job={e.name} data-outcome={e.outcome}>
              <span class="it-dot" aria-hidden="true" />
              <time class="it-time" title={new Date(e.finishedAt).toISOString()}>
                {formatUtcClock(e.finishedAt)}
                <span class="muted"> {formatAge(now - e.finishedAt)}</span>
              </time>
              <button type="button" class="it-name linkish" onClick={() => onOpen(e.name)}>
                {e.name}
              </button>
              <span class={`it-outcome it-outcome-${e.outcome}`}>
                {OUTCOME_TEXT[e.outcome] ?? e.outcome}
                {e.outcome !== 'success' && ` · ${signatureText(e.exitCode, e.reason)}`}
              </span>
              <span class="it-meta muted">
                {e.duration !== null && `took ${formatDuration(e.duration)}`}
                {e.runningNow && <span class="it-running"> · running again</span>}
                {e.group !== null && <span class="it-group"> · same cause group ({e.group})</span>}
              </span>
              <span class="it-gap muted">
                {e.gapMs !== null && `+${formatDuration(e.gapMs / 1000)} after previous`}
              </span>
            </li>
          ))}
        </ol>
      )}
    </Dialog>
  );
}
