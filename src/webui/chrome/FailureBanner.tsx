// The verdict bar over the table: one failing job ("JOB FAILING"), or a fleet event with a one-cause /
// independent verdict from exit codes and reasons within 60 s (spec 06 §9.2), and the incident tools:
// timeline (`i`), tail (the failing jobs in the multi-tail) and mitigate (bulk start / cancel).

import { type FailureBanner as Banner, bannerText } from '../../dashboard/status.ts';
import { useAccess } from '../app/access.ts';

export interface IncidentActions {
  onTimeline(): void;
  onTail(): void;
  onMitigate(): void;
}

export function FailureBanner({
  banner,
  now,
  onOpen,
  onShowFailing,
  actions,
}: {
  banner: Banner;
  now: number;
  onOpen(name: string): void;
  onShowFailing(): void;
  actions: IncidentActions;
}) {
  const first = banner.jobs[0]!;
  const text = bannerText(banner, now);
  const { control } = useAccess();
  const tools = (
    <>
      <button type="button" class="btn" onClick={actions.onTimeline} title="Incident timeline (i)">
        ◷ timeline
      </button>
      <button type="button" class="btn" onClick={actions.onTail} title="Tail the failing jobs">
        ≋ tail
      </button>
      {control && (
        <button
          type="button"
          class="btn btn-mitigate"
          onClick={actions.onMitigate}
          data-testid="mitigate-button"
        >
          ▸ mitigate
        </button>
      )}
    </>
  );
  // One failing job: its logs; a fleet event: the failing segment of the table. The rest is the same bar.
  const single = banner.kind === 'single';
  return (
    <section
      class="banner"
      role="alert"
      data-testid="failure-banner"
      data-failing={single ? 1 : banner.jobs.length}
      data-verdict={single ? undefined : banner.correlation.verdict}
    >
      <span class="banner-icon" aria-hidden="true">
        ▲
      </span>
      <div class="banner-text">
        <strong>{text.head}</strong>
        <span class="banner-sub">{text.sub}</span>
      </div>
      <div class="banner-actions">
        {single ? (
          <button type="button" class="btn" onClick={() => onOpen(first.name)}>
            open logs
          </button>
        ) : (
          <button type="button" class="btn" onClick={onShowFailing}>
            show failing
          </button>
        )}
        {tools}
      </div>
    </section>
  );
}
