// The verdict bar over the table: one failing job ("JOB FAILING"), or a fleet event with a one-cause /
// independent verdict from exit codes and reasons within 60 s (spec 06 §9.2).

import { nameList } from '../lib/advisories.ts';
import { formatAge } from '../lib/format.ts';
import { type FailureBanner as Banner, signatureText } from '../lib/status.ts';

export function FailureBanner({
  banner,
  now,
  onOpen,
  onShowFailing,
}: {
  banner: Banner;
  now: number;
  onOpen(name: string): void;
  onShowFailing(): void;
}) {
  const first = banner.jobs[0]!;
  const age = first.finishedAt !== null ? formatAge(now - first.finishedAt) : '';
  if (banner.kind === 'single') {
    return (
      <section class="banner" role="alert" data-testid="failure-banner">
        <span class="banner-icon" aria-hidden="true">
          ▲
        </span>
        <div class="banner-text">
          <strong>JOB FAILING — {first.name}</strong>
          <span class="banner-sub">
            {signatureText(first.exitCode, first.reason)}
            {age && ` · ${age}`}
          </span>
        </div>
        <div class="banner-actions">
          <button type="button" class="btn" onClick={() => onOpen(first.name)}>
            open logs
          </button>
        </div>
      </section>
    );
  }
  const verdict = banner.correlated
    ? `shared failure signature (${banner.signature}) within 60 s — likely one cause`
    : 'no shared failure signature — likely independent';
  return (
    <section class="banner" role="alert" data-testid="failure-banner">
      <span class="banner-icon" aria-hidden="true">
        ▲
      </span>
      <div class="banner-text">
        <strong>FLEET EVENT — {banner.jobs.length} jobs failing</strong>
        <span class="banner-sub">
          {verdict} ·{' '}
          {nameList(
            banner.jobs.map((j) => j.name),
            3,
          )}
        </span>
      </div>
      <div class="banner-actions">
        <button type="button" class="btn" onClick={onShowFailing}>
          show failing
        </button>
        <button type="button" class="btn" onClick={() => onOpen(first.name)}>
          latest: {first.name}
        </button>
      </div>
    </section>
  );
}
