// The daemon's side of SLA monitoring (spec 09 §2): the monitor over its scheduler, ownership read
// from the cluster gate, `onLate` reports through the ordinary reporters. The monitor is in memory
// and dies with the daemon; `EveryNode` jobs are owned by every node, so each node pages for them.
import { hostname } from 'node:os';
import { decideFire, type GateSource } from '../cluster/gate.ts';
import { dispatchLateReport, lateReportContext } from '../report/sla.ts';
import type { ReportOptions } from '../report/types.ts';
import { LEDGER_SCAN_ROWS, newestLedgerRows, successReference } from '../scheduler/durable/ledger-scan.ts';
import { SLA_PASS_MS, SlaMonitor } from '../scheduler/sla/monitor.ts';
import type { SchedulerView } from '../scheduler/view.ts';
import type { Store } from '../store/types.ts';
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/log.ts';

/**
 * Test hook: the SLA pass period in milliseconds (100 to 60000) instead of once per wall-clock
 * minute. The rules are unchanged; end-to-end tests only see a crossed threshold sooner.
 */
export const SLA_PASS_ENV = 'CRONSTABLE_TEST_SLA_PASS_MS';

function passMs(log: Logger): number {
  const raw = process.env[SLA_PASS_ENV];
  if (!raw) return SLA_PASS_MS;
  const ms = Number(raw);
  if (!/^\d+$/.test(raw) || ms < 100 || ms > SLA_PASS_MS) {
    log.error(`${SLA_PASS_ENV}: '${raw}' is not a whole number of milliseconds from 100 to 60000; ignored`);
    return SLA_PASS_MS;
  }
  log.warning(`test hook ${SLA_PASS_ENV}=${raw}: the SLA monitor passes every ${raw} ms, not every minute`);
  return ms;
}

export function startSlaMonitor(o: {
  clock: Clock;
  log: Logger;
  scheduler: SchedulerView;
  cluster: GateSource | null;
  hasStore: boolean;
  /** The store and its `maxRunsPerJob`, for the boot-time read of each job's last success (09 §2.4). */
  ledger?: { store: Store; maxRunsPerJob: number } | null;
  push?: ReportOptions['push'];
}): SlaMonitor {
  const ledger = o.ledger ?? null;
  // Bounded: max(1000, maxRunsPerJob) newest rows (an unbounded keep, <= 0, reads 1000).
  const rows = ledger ? Math.max(LEDGER_SCAN_ROWS, ledger.maxRunsPerJob) : 0;
  const log = o.log;
  const monitor = new SlaMonitor({
    clock: o.clock,
    log,
    scheduler: o.scheduler,
    owns: (job) => (o.cluster ? decideFire(o.cluster, job.name, job.clusterPolicy).run : true),
    report: (job, breach) =>
      dispatchLateReport(
        job.onLate.report,
        lateReportContext(
          job,
          {
            check: breach.check,
            thresholdSeconds: breach.thresholdSeconds,
            observedSeconds: breach.observedSeconds,
            lastSuccessAt:
              breach.lastSuccessAt === null ? null : new Date(breach.lastSuccessAt).toISOString(),
          },
          process.env.HOSTNAME ?? hostname(),
        ),
        { logger: log, push: o.push },
      ),
    hasStore: o.hasStore,
    ledgerReference: ledger
      ? async (job) => successReference(await newestLedgerRows(ledger.store, job, rows))
      : undefined,
    passMs: passMs(log),
  });
  return monitor;
}
