// The node-overloaded bar (issue 14 item 9): the node drops fires or falls behind its launches, from `/node`.
import type { ApiNode } from '../../dashboard/types.ts';

export function OverloadBanner({ overload }: { overload: NonNullable<ApiNode['overload']> }) {
  const behind =
    overload.waiting_launches > 0
      ? ` · ${overload.waiting_launches} launch(es) waiting, oldest ${overload.launch_lag_seconds.toFixed(1)} s`
      : '';
  return (
    <section class="banner banner-warn" role="alert" data-testid="overload-banner">
      <span class="banner-icon" aria-hidden="true">
        ◆
      </span>
      <div class="banner-text">
        <strong>NODE OVERLOADED</strong>
        <span class="banner-sub">
          {overload.missed_fires} fire(s) missed since start (slot outcome missed-overload){behind}
        </span>
      </div>
    </section>
  );
}
