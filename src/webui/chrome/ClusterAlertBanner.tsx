// The red CLUSTER ALERT bar under the top bar (spec 06 §9.2): lost quorum, a visible conflict, or an
// unreachable lease store; each pauses the Leader jobs.
import type { ClusterAlert } from '../../dashboard/cluster.ts';

export function ClusterAlertBanner({ alert, onShow }: { alert: ClusterAlert; onShow(): void }) {
  return (
    <section class="banner banner-cluster" role="alert" data-testid="cluster-alert">
      <span class="banner-icon" aria-hidden="true">
        ◆
      </span>
      <div class="banner-text">
        <strong>CLUSTER ALERT — {alert.title}</strong>
        <span class="banner-sub">{alert.detail}</span>
      </div>
      <div class="banner-actions">
        <button type="button" class="btn" onClick={onShow}>
          show cluster
        </button>
      </div>
    </section>
  );
}
