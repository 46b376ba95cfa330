// A DAG's catch-up on this node (spec 09 §9.3): plan from the runs' watermark and the newest checkpoint
// of `catchup-dag/<dag>`, then either create the missed runs at once (no jitter) or write an `open`
// checkpoint, wait the DAG's jitter offset without holding up any other DAG, re-read the DAG and create
// them, and write `close`. A shutdown during the wait leaves the checkpoint open, so the next catch-up
// (here or on the new owner) resumes from it.
import type { DagConfig } from '../../config/types.ts';
import type { Store } from '../../store/types.ts';
import type { Clock, TimerHandle } from '../../util/clock.ts';
import { errorText } from '../../util/errors.ts';
import { isoUtc } from '../../util/iso-utc.ts';
import type { Logger } from '../../util/log.ts';
import { type RunToCreate, watermarkOf } from '../backfill.ts';
import {
  type CatchupPlan,
  CHECKPOINTS_KEPT,
  checkpointStream,
  forwardFires,
  gapWarning,
  overflowWarning,
  parseCheckpoint,
  planCatchup,
  replayInfo,
} from '../catchup.ts';

export interface CatchupDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  /** The DAG as configured now (re-read after the jitter wait). */
  dag(name: string): DagConfig | undefined;
  /** Whether this node still owns `dag:<name>`. */
  gate(dag: DagConfig): boolean;
  create(dag: DagConfig, run: RunToCreate): Promise<boolean>;
  stopping(): boolean;
}

export class DagCatchup {
  private readonly waits = new Set<TimerHandle>();

  constructor(private readonly deps: CatchupDeps) {}

  /**
   * One firing pass of a due DAG (04 §8.1 with spec 09 §9.3's gaps): creates its runs and answers the
   * index's new next instant. On a gap the watermark is read before the current slot's run exists, so
   * the catch-up that follows replays the gap up to that slot.
   */
  async fire(dag: DagConfig, next: number | null, nowMs: number): Promise<number | null> {
    const due = forwardFires(dag, next, nowMs);
    const catchUp = due.gapMs !== null && dag.onMissed !== 'skip';
    if (due.gapMs !== null) this.deps.log.warning(gapWarning(dag, due.gapMs));
    const watermark = catchUp
      ? await this.deps.store
          .dagRunStats(dag.name)
          .then((s) => watermarkOf([s.watermark]))
          .catch(() => null)
      : null;
    await this.createAll(dag, due.runs);
    if (catchUp)
      await this.run(dag, nowMs, watermark, due.runs[0]?.at ?? null).catch((e) =>
        this.deps.log.warning(`dag ${dag.name}: catch-up failed: ${errorText(e)}`),
      );
    return due.next;
  }

  /**
   * One catch-up as of `nowMs`. `watermarkMs` is passed when the caller read it before creating a run
   * this pass (a gap's current slot, `exclude`); otherwise it is read here. Resolves once the runs are
   * created, or once the jittered part is scheduled.
   */
  async run(dag: DagConfig, nowMs: number, watermarkMs?: number | null, exclude: number | null = null) {
    const { store, log } = this.deps;
    const watermark =
      watermarkMs !== undefined ? watermarkMs : watermarkOf([(await store.dagRunStats(dag.name)).watermark]);
    const newest = await store.newest(checkpointStream(dag.name));
    const plan = planCatchup(dag, watermark, newest ? parseCheckpoint(newest.data) : null, nowMs, exclude);
    if (plan.closeOnly) await this.checkpoint(dag, 'close', nowMs);
    if (plan.runs.length === 0) return;
    if (plan.overflow) log.warning(overflowWarning(dag));
    log.info(replayInfo(dag, plan.runs.length, plan.offsetMs));
    if (plan.offsetMs === 0) {
      await this.createAll(dag, plan.runs);
      if (plan.resumed) await this.checkpoint(dag, 'close', nowMs);
      return;
    }
    await this.checkpoint(dag, 'open', plan.watermark ?? nowMs);
    const timer = this.deps.clock.setTimer(() => {
      this.waits.delete(timer);
      void this.afterJitter(dag.name, plan, nowMs).catch((e) =>
        log.warning(`dag ${dag.name}: catch-up failed: ${errorText(e)}`),
      );
    }, plan.offsetMs);
    this.waits.add(timer);
  }

  /** Shutdown: pending jitter waits end here, their checkpoints left open. */
  stop(): void {
    for (const t of this.waits) this.deps.clock.clearTimer(t);
    this.waits.clear();
  }

  private async afterJitter(name: string, plan: CatchupPlan, anchorMs: number): Promise<void> {
    if (this.deps.stopping()) return;
    const dag = this.deps.dag(name);
    const { log } = this.deps;
    if (!dag?.enabled || !dag.cron || dag.onMissed === 'skip') {
      log.info(`dag ${name}: removed or disabled during its catch-up jitter window; dropping the backfill`);
      return;
    }
    if (!this.gateAllows(dag)) {
      log.info(
        `dag ${name}: ownership moved during its catch-up jitter window; leaving the backfill to the new owner (which resumes from the open checkpoint)`,
      );
      return;
    }
    if (!(await this.createAll(dag, plan.runs))) return;
    await this.checkpoint(dag, 'close', anchorMs);
  }

  /** Creates the runs in order, stopping between two at shutdown; false when it stopped early. */
  private async createAll(dag: DagConfig, runs: readonly RunToCreate[]): Promise<boolean> {
    for (const r of runs) {
      if (this.deps.stopping()) return false;
      try {
        await this.deps.create(dag, r);
      } catch (e) {
        this.deps.log.warning(`dag ${dag.name}: could not create run ${r.runKey}: ${errorText(e)}`);
      }
    }
    return true;
  }

  private gateAllows(dag: DagConfig): boolean {
    try {
      return this.deps.gate(dag);
    } catch {
      return false;
    }
  }

  /** A failed checkpoint write only warns: the backfill goes on, a restart may replay it again. */
  private async checkpoint(dag: DagConfig, kind: 'open' | 'close', watermarkMs: number): Promise<void> {
    const data = { kind, watermark: isoUtc(watermarkMs), at: isoUtc(this.deps.clock.now()) };
    try {
      await this.deps.store.append(checkpointStream(dag.name), data, { keep: CHECKPOINTS_KEPT });
    } catch (e) {
      this.deps.log.warning(
        `dag ${dag.name}: could not checkpoint catch-up '${kind}' (${errorText(e)}); a restart mid-backfill may not resume it`,
      );
    }
  }
}
