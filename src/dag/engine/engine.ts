// The DAG engine on one daemon (spec 04 §7-§8): creates scheduled, catch-up, manual and backfill
// runs, owns runs through their fenced advance lease, advances each owned run with the pure planner
// (reconcile, expand, claim, spawn, record), adopts runs whose owner died, and drains on shutdown.
// The run document in the store is the truth; this process only keeps timers and child handles.
// A task instance's own lifecycle (launch to recorded completion) is tasks.ts; retention is retention.ts.
import { randomBytes } from 'node:crypto';
import type { DagConfig } from '../../config/types.ts';
import type { LaunchOptions, LaunchSpec, RunHandle } from '../../exec/types.ts';
import type { RunRegistry } from '../../jobapi/registry.ts';
import type { ReportOptions } from '../../report/types.ts';
import type { Lease, Store } from '../../store/types.ts';
import type { Clock, TimerHandle } from '../../util/clock.ts';
import { errorText } from '../../util/errors.ts';
import type { Logger } from '../../util/log.ts';
import { pidAlive } from '../../util/pid.ts';
import { type RunToCreate, seedNextFire } from '../backfill.ts';
import { decodeItems } from '../expand.ts';
import type { DagManifest } from '../gc.ts';
import { newRun, type RunKind } from '../model.ts';
import { plan } from '../planner.ts';
import { apply, claimPass, type Pass } from '../reducer.ts';
import { manualRunKey } from '../runkey.ts';
import { DagCatchup } from './catchup-runner.ts';
import { DagRetention, type RetentionPass } from './retention.ts';
import { RunStore, runMapKey } from './run-store.ts';
import { DagTasks, type LiveTaskOutput } from './tasks.ts';

export type { LiveSink, LiveTaskOutput } from './tasks.ts';

/** §7.6 timing constants. */
export const LEASE_TTL_SECONDS = 30;
export const LEASE_RENEW_MS = 10_000;
export const SEED_EVERY_MS = 20_000;
export const ADOPT_EVERY_MS = 30_000;
export const RETRY_ADVANCE_MS = 5_000;
export const FIRE_CHECK_MS = 1_000;
export const RETENTION_EVERY_MS = 3_600_000;

export interface DagEngineDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  /** This node's host identity (stamped on claims, `CRONSTABLE_HOST`). */
  host: string;
  launch: (spec: LaunchSpec, opts: LaunchOptions) => RunHandle;
  /** The loopback job API: per-launch tokens and the task environment (§6.3). */
  registry: RunRegistry | null;
  /** Whether this node creates scheduled/catch-up runs of the DAG now (the gate of `dag:<name>`). */
  gate(dag: DagConfig): boolean;
  /** Random per daemon process by default: a restarted daemon is a different holder. */
  procToken?: string;
  /** Whether a pid on this host is alive (default: signal 0). */
  alive?(pid: number): boolean;
  /** The first retention pass runs this long after start (default 60 s). */
  retentionFirstMs?: number;
  /** `state.gcGraceSeconds` (default a week; <= 0 disables collecting removed DAGs), §10. */
  gcGraceSeconds?: number;
  /**
   * The advance lease's TTL (default 30 s, §7.6); renewal runs at a third of it and the adoption
   * scan as often as the TTL, so the three keep the spec's proportions. Only the daemon's
   * `CRONSTABLE_TEST_DAG_LEASE_SECONDS` hook sets it, so crash-resume tests need not wait a minute.
   */
  leaseSeconds?: number;
  /** Told what each advance pass did, for the notify events (spec 09 §5.2). */
  runWatch?: { afterPass(pass: Pass): void };
  push?: ReportOptions['push']; // the daemon's channel for the tasks' `report.push` (spec 10 §6.3)
}

/** A run whose advance lease this node holds. */
interface Owned {
  dag: string;
  runKey: string;
  lease: Lease;
  timer: TimerHandle | null;
  busy: boolean;
  again: boolean;
}

interface Index {
  next: number | null;
  seeded: boolean;
  signature: string;
}

const leaseName = (dag: string, runKey: string) => `dagadvance/${dag}/${runKey}`;
const ownedKey = runMapKey;

export class DagEngine {
  readonly proc: string;
  readonly holder: string;
  private readonly runs: RunStore;
  private dags = new Map<string, DagConfig>();
  private readonly index = new Map<string, Index>();
  private readonly owned = new Map<string, Owned>();
  private readonly tasks: DagTasks;
  private readonly gc: DagRetention;
  private readonly catchup: DagCatchup;
  /** The current timer of each periodic loop (seeding, firing, adoption, renewal, retention). */
  private readonly timers = new Map<string, TimerHandle>();
  private started = false;
  private stopping = false;
  private readonly leaseTtl: number;

  constructor(private readonly deps: DagEngineDeps) {
    this.leaseTtl = deps.leaseSeconds ?? LEASE_TTL_SECONDS;
    this.proc = deps.procToken ?? randomBytes(8).toString('hex');
    this.holder = `${deps.host}#${this.proc}`;
    this.runs = new RunStore(deps.store);
    this.tasks = new DagTasks({
      runs: this.runs,
      clock: deps.clock,
      log: deps.log,
      launch: deps.launch,
      registry: deps.registry,
      proc: this.proc,
      dag: (name) => this.dags.get(name),
      wake: (dag, runKey) => this.wake(dag, runKey),
      owns: (dag, runKey) => this.owns(dag, runKey),
      push: deps.push,
    });
    this.gc = new DagRetention({
      store: deps.store,
      clock: deps.clock,
      log: deps.log,
      host: deps.host,
      graceSeconds: deps.gcGraceSeconds ?? 604_800,
      dags: () => this.list(),
    });
    this.catchup = new DagCatchup({
      store: deps.store,
      clock: deps.clock,
      log: deps.log,
      dag: (name) => this.dags.get(name),
      gate: (dag) => this.gateAllows(dag),
      create: (dag, r) => this.createRun(dag, r),
      stopping: () => this.stopping,
    });
  }

  private nowS(): number {
    return this.deps.clock.now() / 1000;
  }

  configured(name: string): DagConfig | undefined {
    return this.dags.get(name);
  }

  list(): DagConfig[] {
    return [...this.dags.values()];
  }

  get store(): Store {
    return this.deps.store;
  }

  /** Load or reload the DAG list (§3.7): changed schedules re-seed strictly in the future. */
  load(dags: readonly DagConfig[]): void {
    const prev = this.dags;
    this.dags = new Map(dags.map((d) => [d.name, d]));
    for (const name of prev.keys()) if (!this.dags.has(name)) this.index.delete(name);
    for (const d of dags) {
      const sig = JSON.stringify([d.scheduleText, d.timezone, d.utc, d.enabled]);
      const cur = this.index.get(d.name);
      if (!cur || cur.signature !== sig)
        this.index.set(d.name, { next: null, seeded: false, signature: sig });
    }
    // Runs of a removed DAG: stop advancing and release (the document stays until GC).
    for (const o of [...this.owned.values()]) if (!this.dags.has(o.dag)) void this.disown(o, true);
    if (this.started) {
      void this.seedAll();
      void this.publishManifest().catch((e) =>
        this.deps.log.warning(`dag: writing the dag manifest failed: ${errorText(e)}`),
      );
    }
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    const every = (name: string, ms: number, fn: () => Promise<void> | void) => {
      const arm = () => this.timers.set(name, this.deps.clock.setTimer(tick, ms));
      const tick = () => {
        if (this.stopping) return;
        Promise.resolve()
          .then(fn)
          .catch((e) => this.deps.log.warning(`dag: ${errorText(e)}`))
          .finally(() => {
            if (!this.stopping) arm();
          });
      };
      arm();
    };
    void this.seedAll().then(() => this.fireDue());
    void this.adoptScan();
    void this.publishManifest().catch((e) =>
      this.deps.log.warning(`dag: writing the dag manifest failed: ${errorText(e)}`),
    );
    every('fire', FIRE_CHECK_MS, () => this.fireDue());
    every('seed', SEED_EVERY_MS, () => this.seedAll());
    const scale = this.leaseTtl / LEASE_TTL_SECONDS;
    every('adopt', ADOPT_EVERY_MS * scale, () => this.adoptScan());
    every('renew', LEASE_RENEW_MS * scale, () => this.renewAll());
    const first = this.deps.retentionFirstMs ?? 60_000;
    this.timers.set(
      'retention',
      this.deps.clock.setTimer(() => {
        void this.retention();
        every('retention', RETENTION_EVERY_MS, async () => {
          await this.retention();
        });
      }, first),
    );
  }

  // ---- creating runs (§7.1, §8) ----

  /** Seeding (§8.1/§8.2): on gate gain (or a changed schedule), the next fire and the catch-up. */
  private async seedAll(): Promise<void> {
    for (const dag of this.dags.values()) {
      const ix = this.index.get(dag.name);
      if (!ix) continue;
      const allowed = dag.enabled && dag.cron !== null && this.gateAllows(dag);
      if (!allowed) {
        ix.seeded = false;
        continue;
      }
      if (ix.seeded) continue;
      const nowMs = this.deps.clock.now();
      ix.next = seedNextFire(dag, nowMs);
      ix.seeded = true;
      try {
        await this.catchup.run(dag, nowMs);
      } catch (e) {
        this.deps.log.warning(`dag ${dag.name}: catch-up failed: ${errorText(e)}`);
      }
    }
  }

  private gateAllows(dag: DagConfig): boolean {
    try {
      return this.deps.gate(dag);
    } catch {
      return false;
    }
  }

  private async fireDue(): Promise<void> {
    const nowMs = this.deps.clock.now();
    let unseeded = false;
    for (const dag of this.dags.values()) {
      const ix = this.index.get(dag.name);
      // The gate opened here (this node now owns `dag:<name>`): seed at once rather than on the
      // next 20 s pass, so the new owner's first runs are not a pass late (with onMissed: skip
      // the instants in between would be lost to the fleet).
      if (ix && !ix.seeded && dag.enabled && dag.cron !== null && this.gateAllows(dag)) unseeded = true;
      if (!ix?.seeded || ix.next === null || ix.next > nowMs) continue;
      if (!dag.enabled || !this.gateAllows(dag)) {
        ix.seeded = false;
        continue;
      }
      ix.next = await this.catchup.fire(dag, ix.next, nowMs);
    }
    if (unseeded) await this.seedAll();
  }

  /** Create-if-absent; the winning creator takes the lease and advances at once (§7.1). */
  async createRun(
    dag: DagConfig,
    r: Pick<RunToCreate, 'runKey' | 'kind'> & { logicalDate: string | null },
  ): Promise<boolean> {
    const run = newRun(dag, {
      runKey: r.runKey,
      runId: randomBytes(16).toString('hex'),
      logicalDate: r.logicalDate,
      kind: r.kind,
      now: this.nowS(),
    });
    const created = await this.runs.create(run);
    if (created) {
      this.deps.log.info(`dag run ${dag.name}/${r.runKey} created (${r.kind})`);
      void this.tryOwn(dag.name, r.runKey);
    }
    return created;
  }

  /** `POST …/trigger` (§8.4): the run exists in the store before its key is answered. */
  async trigger(dag: DagConfig): Promise<string> {
    const runKey = manualRunKey(randomBytes(6).toString('hex'));
    const kind: RunKind = 'manual';
    await this.createRun(dag, { runKey, logicalDate: null, kind });
    return runKey;
  }

  // ---- ownership (§7.2, §7.3) ----

  private async tryOwn(dag: string, runKey: string): Promise<boolean> {
    if (this.stopping || !this.dags.has(dag)) return false;
    const key = ownedKey(dag, runKey);
    if (this.owned.has(key)) return true;
    let lease: Lease | null;
    try {
      lease = await this.deps.store.leaseAcquire(leaseName(dag, runKey), this.holder, this.leaseTtl);
    } catch (e) {
      this.deps.log.warning(`dag run ${dag}/${runKey}: lease acquire failed: ${errorText(e)}`);
      return false;
    }
    if (!lease || this.owned.has(key)) return lease !== null;
    const o: Owned = { dag, runKey, lease, timer: null, busy: false, again: false };
    this.owned.set(key, o);
    void this.advance(o);
    return true;
  }

  private async disown(o: Owned, release: boolean): Promise<void> {
    const key = ownedKey(o.dag, o.runKey);
    if (this.owned.get(key) !== o) return;
    this.owned.delete(key);
    this.runs.forget(o.dag, o.runKey);
    if (o.timer) this.deps.clock.clearTimer(o.timer);
    o.timer = null;
    if (release)
      await this.deps.store
        .leaseRelease(o.lease)
        .catch((e) =>
          this.deps.log.warning(`dag run ${o.dag}/${o.runKey}: lease release failed: ${errorText(e)}`),
        );
  }

  private async renewAll(): Promise<void> {
    for (const o of [...this.owned.values()]) {
      try {
        const renewed = await this.deps.store.leaseRenew(o.lease, this.leaseTtl);
        if (renewed) o.lease = renewed;
        else {
          this.deps.log.warning(`dag run ${o.dag}/${o.runKey}: advance lease taken over; stopping here`);
          await this.disown(o, false);
        }
      } catch (e) {
        this.deps.log.warning(`dag run ${o.dag}/${o.runKey}: lease renewal failed: ${errorText(e)}`);
      }
    }
  }

  /** §7.3: every non-terminal run of a configured DAG that nobody holds is adopted here. */
  async adoptScan(): Promise<void> {
    if (this.stopping) return;
    let active: { dag: string; runKey: string }[];
    try {
      active = await this.deps.store.dagRunsActive();
    } catch (e) {
      this.deps.log.warning(`dag: adoption scan failed: ${errorText(e)}`);
      return;
    }
    for (const r of active) {
      if (!this.dags.has(r.dag) || this.owned.has(ownedKey(r.dag, r.runKey))) continue;
      await this.tryOwn(r.dag, r.runKey);
    }
  }

  /** Before advancing: a lease past its expiry is re-read (§7.2); false = skip this advance. */
  private async leaseStillMine(o: Owned): Promise<'yes' | 'no' | 'unknown'> {
    if (o.lease.expiresAt > this.nowS()) return 'yes';
    try {
      const cur = await this.deps.store.leaseRead(o.lease.name);
      if (cur && (cur.holder !== o.lease.holder || cur.fence !== o.lease.fence)) return 'no';
      const renewed = await this.deps.store.leaseRenew(o.lease, this.leaseTtl);
      if (!renewed) return 'no';
      o.lease = renewed;
      return 'yes';
    } catch {
      return 'unknown';
    }
  }

  // ---- the advance pass (§7.4) ----

  /** Serialised per run: a request while a pass runs makes exactly one more pass afterwards. */
  wake(dag: string, runKey: string): void {
    const o = this.owned.get(ownedKey(dag, runKey));
    if (o) void this.advance(o);
  }

  private schedule(o: Owned, delayMs: number): void {
    if (this.stopping || this.owned.get(ownedKey(o.dag, o.runKey)) !== o) return;
    if (o.timer) this.deps.clock.clearTimer(o.timer);
    o.timer = this.deps.clock.setTimer(
      () => {
        o.timer = null;
        void this.advance(o);
      },
      Math.max(0, delayMs),
    );
  }

  private async advance(o: Owned): Promise<void> {
    if (o.busy) {
      o.again = true;
      return;
    }
    o.busy = true;
    try {
      do {
        o.again = false;
        const next = await this.pass(o);
        if (next === 'released') return;
        if (next === 'again') o.again = true;
        else if (!o.again) this.schedule(o, next);
      } while (o.again && this.owned.get(ownedKey(o.dag, o.runKey)) === o);
    } catch (e) {
      this.deps.log.warning(`dag run ${o.dag}/${o.runKey}: advance failed: ${errorText(e)}`);
      if (this.owned.get(ownedKey(o.dag, o.runKey)) === o) this.schedule(o, RETRY_ADVANCE_MS);
    } finally {
      o.busy = false;
    }
  }

  /** One pass; answers the delay to the next (ms), 'again' (deferred), or 'released'. */
  private async pass(o: Owned): Promise<number | 'again' | 'released'> {
    if (this.owned.get(ownedKey(o.dag, o.runKey)) !== o) return 'released';
    const dag = this.dags.get(o.dag);
    if (!dag) {
      await this.disown(o, true);
      return 'released';
    }
    const mine = await this.leaseStillMine(o);
    if (mine === 'no') {
      this.deps.log.warning(`dag run ${o.dag}/${o.runKey}: advance lease taken over; stopping here`);
      await this.disown(o, false);
      return 'released';
    }
    if (mine === 'unknown') return RETRY_ADVANCE_MS;
    const { host } = this.deps;
    const alive = this.deps.alive ?? pidAlive;
    // 1. reconcile
    const rec = await this.runs.mutate(o.dag, o.runKey, (run) =>
      apply(run, dag, { type: 'reconcile', proc: this.proc, host, alive, now: this.nowS() }),
    );
    if (!rec) {
      await this.disown(o, true);
      return 'released';
    }
    if (rec.changed && rec.touched.length > 0)
      this.deps.log.info(`dag run ${o.dag}/${o.runKey}: reconciled ${rec.touched.join(', ')}`);
    if (rec.run.state !== 'running') {
      await this.disown(o, true);
      return 'released';
    }
    // 2-3. read the lists of mapped tasks awaiting expansion, outside the CAS
    const expansions = new Map<string, unknown[]>();
    let unknownRead = false;
    for (const a of plan(rec.run, dag, this.nowS()).actions) {
      if (a.type !== 'expand') continue;
      if (a.fromTask === null || a.key === null) {
        expansions.set(a.taskId, []);
        continue;
      }
      try {
        const got = await this.deps.store.artifactGet(
          `dagxcom/${o.dag}/${rec.run.runId}`,
          `${a.fromTask}/${a.key}`,
        );
        const decoded = decodeItems(got === null || got === 'gone' ? null : got.bytes);
        if (decoded.warning)
          this.deps.log.warning(`dag run ${o.dag}/${o.runKey}: ${a.taskId}: ${decoded.warning}`);
        expansions.set(a.taskId, decoded.items);
      } catch (e) {
        unknownRead = true;
        this.deps.log.warning(
          `dag run ${o.dag}/${o.runKey}: reading ${a.fromTask}/${a.key} failed: ${errorText(e)}`,
        );
      }
    }
    // 4. the claim CAS
    const pass = await this.runs.mutate(o.dag, o.runKey, (run) =>
      claimPass(run, dag, {
        now: this.nowS(),
        proc: this.proc,
        host,
        expansions,
        ...(this.stopping ? { maxLaunches: 0 } : {}),
      }),
    );
    if (!pass) {
      await this.disown(o, true);
      return 'released';
    }
    // 5. spawn what was claimed; a sensor this pass timed out failed, which is its report (spec 09 §4.3)
    for (const l of pass.launches) this.tasks.spawn(dag, pass.run, l.taskKey, l.attempt, l.pokeCount);
    for (const a of pass.actions)
      if (a.type === 'sensor-timeout') this.tasks.reportSensorTimeout(dag, pass.run, a.taskKey);
    this.deps.runWatch?.afterPass(pass);
    // 6. the next wake
    if (pass.run.state !== 'running') {
      this.deps.log.info(`dag run ${o.dag}/${o.runKey} reached a terminal state (${pass.run.state})`);
      await this.disown(o, true);
      return 'released';
    }
    if (pass.deferred && !this.stopping) return 'again';
    const wakeAt = pass.wakeAt ?? this.nowS() + 60;
    const delay = Math.max(0, wakeAt * 1000 - this.deps.clock.now());
    return unknownRead ? Math.min(delay, RETRY_ADVANCE_MS) : delay;
  }

  /** Live output of a task instance running here (the logs route), secrets redacted. */
  liveTask(dag: string, runKey: string, taskKey: string): LiveTaskOutput | null {
    return this.tasks.liveTask(dag, runKey, taskKey);
  }

  /** A decision (§3.4) from any node: a CAS; the owner, if here, advances at once. */
  async decide(
    dag: DagConfig,
    runKey: string,
    taskKey: string,
    decision: 'approve' | 'reject',
    by: string,
  ): Promise<{ ok: true; state: string } | { ok: false; reason: string }> {
    let rejected: string | null = null;
    const out = await this.runs.mutate(dag.name, runKey, (run) => {
      if (!run.tasks[taskKey]) {
        rejected = 'no such task';
        return { run, changed: false, touched: [] as string[], taskState: null };
      }
      const r = apply(run, dag, { type: 'decision', taskKey, decision, by, now: this.nowS() });
      rejected = r.rejected;
      return r;
    });
    // A decision here for a run another node advances: do not keep its document in memory.
    if (!this.owns(dag.name, runKey)) this.runs.forget(dag.name, runKey);
    if (!out) return { ok: false, reason: 'no such run' };
    if (rejected !== null || out.taskState === null)
      return { ok: false, reason: rejected === 'no such task' ? rejected : 'task is not awaiting approval' };
    this.wake(dag.name, runKey);
    return { ok: true, state: out.taskState };
  }

  // ---- retention and GC (§10, retention.ts) ----

  /** Writes this node's manifest (its DAG names, when it last had each, their retainRuns). */
  publishManifest(): Promise<DagManifest> {
    return this.gc.publishManifest();
  }

  /** The hourly pass: manifests, per-DAG pruning, removed-DAG collection. */
  retention(): Promise<RetentionPass> {
    return this.gc.retention();
  }

  // ---- shutdown (§7.7) ----

  /** Running tasks finish (or are cancelled after `graceMs`), their completions land, leases go. */
  async stop(graceMs: number): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.tasks.silenceReports();
    this.catchup.stop();
    for (const t of this.timers.values()) this.deps.clock.clearTimer(t);
    for (const o of this.owned.values()) if (o.timer) this.deps.clock.clearTimer(o.timer);
    const pending = this.tasks.recordedAll();
    if (pending.length > 0) {
      this.deps.log.info(`dag: waiting up to ${graceMs / 1000} s for ${pending.length} running task(s)`);
      let timer: TimerHandle | null = null;
      const timedOut = new Promise<'timeout'>((r) => {
        timer = this.deps.clock.setTimer(() => r('timeout'), graceMs);
      });
      const res = await Promise.race([Promise.allSettled(pending), timedOut]);
      if (timer) this.deps.clock.clearTimer(timer);
      if (res === 'timeout') {
        await this.tasks.cancelAll();
        await Promise.race([
          Promise.allSettled(this.tasks.recordedAll()),
          new Promise((r) => this.deps.clock.setTimer(() => r(null), 5_000)),
        ]);
      }
    }
    for (const o of [...this.owned.values()]) await this.disown(o, true);
  }

  /** Kill every running task now (a second signal). */
  async kill(): Promise<void> {
    await this.tasks.cancelAll();
  }

  /** Running task processes here (for logs / status). */
  runningCount(): number {
    return this.tasks.count;
  }

  /** Is this node advancing the run? */
  owns(dag: string, runKey: string): boolean {
    return this.owned.has(ownedKey(dag, runKey));
  }
}
