// The daemon's side of the cluster: the manager with what it reads of the daemon (job set,
// job summaries for the fleet view, the store), the gate and the fire claims the scheduler uses.
import { StoreFireClaims } from '../cluster/claims.ts';
import { FleetGate } from '../cluster/gate.ts';
import { ClusterManager } from '../cluster/manager.ts';
import type { JobSummary } from '../cluster/types.ts';
import type { ClusterSection, StateSection } from '../config/file-schema.ts';
import type { LoadWarning } from '../config/types.ts';
import type { Notifier } from '../report/notify.ts';
import type { SchedulerView } from '../scheduler/view.ts';
import type { Store } from '../store/types.ts';
import type { Clock } from '../util/clock.ts';
import { getLogger } from '../util/log.ts';
import { notifyRoleChange } from './notify.ts';

/** What the fleet view shows of this node's jobs (spec 05 §5.3 `job_summaries`). */
export function jobSummariesOf(scheduler: SchedulerView | null, nowMs: number): Record<string, JobSummary> {
  const out: Record<string, JobSummary> = {};
  if (!scheduler) return out;
  for (const st of scheduler.status()) {
    const last = scheduler.history(st.name)?.lastRun();
    out[st.name] = {
      running: st.status === 'running',
      enabled: st.status !== 'disabled',
      scheduled_in: st.nextFire === null ? null : Math.max(0, (st.nextFire - nowMs) / 1000),
      last:
        last && last.outcome !== 'unknown'
          ? {
              outcome: last.outcome,
              finished_at: new Date(last.finishedAt).toISOString(),
              duration: last.durationSeconds,
              exit_code: last.exitCode,
            }
          : null,
    };
  }
  return out;
}

/** The config's cluster advisories: logged once per manager (re)build, not on every reload. */
export function isClusterAdvisory(w: LoadWarning): boolean {
  return w.message.startsWith('cluster:');
}

/** How soon a deferred retry or pending @reboot asks the gate again: about one gossip round. */
function recheckMs(cluster: ClusterSection | null): number {
  if (!cluster || (cluster.backend ?? 'gossip') !== 'gossip') return 2000;
  return Math.min(30_000, Math.max(1000, (cluster.interval ?? 30) * 1000));
}

export interface DaemonCluster {
  manager: ClusterManager;
  gate: FleetGate;
  claims: StoreFireClaims;
}

export function daemonCluster(opts: {
  clock: Clock;
  cluster: ClusterSection | null;
  state: StateSection | null;
  store: () => Store | null;
  jobSetId: () => string;
  scheduler: () => SchedulerView | null;
  /** Told the leadership and quorum flips (spec 09 §5.2). */
  notifier?: Notifier;
}): DaemonCluster {
  const log = getLogger('cronstable.cluster');
  const manager = new ClusterManager({
    clock: opts.clock,
    log,
    jobSetId: opts.jobSetId,
    jobSummaries: () => jobSummariesOf(opts.scheduler(), opts.clock.now()),
    store: opts.store,
    onRoleChange: (change) => {
      if (opts.notifier) notifyRoleChange(opts.notifier, manager, change);
    },
  });
  const gate = new FleetGate(manager, {
    clock: opts.clock,
    recheckMs: recheckMs(opts.cluster),
    warn: (m) => log.warning(m),
  });
  const claims = new StoreFireClaims({
    store: opts.store,
    electionOn: () => manager.electionOn(),
    nodeName: () => manager.nodeName,
    // A Leader slot promises at most once: unless the operator chose degrade, no claim, no run.
    onStoreUnavailable: opts.state?.onStoreUnavailable ?? 'fail-closed',
    warn: (m) => log.warning(m),
  });
  return { manager, gate, claims };
}
