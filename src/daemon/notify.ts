// The daemon's side of `notify:` (spec 09 §5): the notifier over the shared store's claims, and
// the two sources that raise events: the cluster manager's role flips and the DAG advance.
import { hostname } from 'node:os';
import type { ClusterManager, RoleChange } from '../cluster/manager.ts';
import { DagRunWatch } from '../dag/engine/run-events.ts';
import { Notifier, type NotifyClaims } from '../report/notify.ts';
import {
  approvalWaitingEvent,
  dagFailureEvent,
  leaderChangeEvent,
  quorumLossEvent,
} from '../report/notify-event.ts';
import type { ReportLogger, ReportOptions } from '../report/types.ts';
import type { Store } from '../store/types.ts';

/** Where notify claims live in the store: the daemon's own, apart from the scopes jobs use. */
const CLAIM_SCOPE = 'cronstable/notify';

function storeClaims(store: Store): NotifyClaims {
  return {
    claim: async (key, ttlSeconds) => (await store.idempotencyClaim(CLAIM_SCOPE, key, ttlSeconds)).fresh,
    release: async (key) => {
      await store.idempotencyRelease(CLAIM_SCOPE, key);
    },
  };
}

export function daemonNotifier(
  log: ReportLogger,
  store: () => Store | null,
  report: Pick<ReportOptions, 'push' | 'mailBudgetMs'> = {},
): Notifier {
  return new Notifier({
    logger: log,
    host: () => process.env.HOSTNAME ?? hostname(),
    shell: process.platform === 'win32' ? '' : '/bin/sh',
    claims: () => {
      const s = store();
      return s ? storeClaims(s) : null;
    },
    report: {
      push: report.push,
      ...(report.mailBudgetMs === undefined ? {} : { mailBudgetMs: report.mailBudgetMs }),
    },
  });
}

/**
 * A role flip of this node as a notify event: leadership (never under `distribution: spread`,
 * where no node leads the job set) and leaving quorum; regaining quorum ends the fleet's incident.
 */
export function notifyRoleChange(notifier: Notifier, manager: ClusterManager, change: RoleChange): void {
  const node = manager.nodeName;
  if (change.what === 'leader') {
    if (manager.distribution() === 'spread' || !notifier.wants('leader_change')) return;
    notifier.raise(leaderChangeEvent(node, change.now, change.leader, change.reload));
  } else if (change.now) notifier.quorumRegained();
  else if (notifier.wants('quorum_loss')) notifier.raise(quorumLossEvent(node, change.reload));
}

/** The DAG engine's pass watcher, raising `dag_failure` and `approval_waiting`. */
export function dagRunNotices(notifier: Notifier): DagRunWatch {
  return new DagRunWatch({
    runFailed: (run, failed) => {
      if (notifier.wants('dag_failure'))
        notifier.raise(dagFailureEvent(run.dag, run.runKey, run.runId, failed));
    },
    approvalWaiting: (run, taskKey) => {
      if (notifier.wants('approval_waiting'))
        notifier.raise(approvalWaitingEvent(run.dag, run.runKey, run.runId, taskKey));
    },
  });
}
