// The lifecycle of one DAG task instance on this node (spec 04 §6.3, §7.5), top to bottom: run-scoped
// secrets, the job-API registration, the launch, pid/statsd/resource sampling, the exit, and the fenced
// completion that lands in the run document (batched per run). The engine decides what to launch; this
// module owns each launched process until its completion is recorded.
import type { DagConfig, DagTaskConfig } from '../../config/types.ts';
import type { LaunchOptions, LaunchSpec, OutputLine, RunHandle, RunResult } from '../../exec/types.ts';
import type { RunCredentials, RunRegistry } from '../../jobapi/registry.ts';
import { resolveRunSecrets, type SecretWarning } from '../../jobapi/secrets.ts';
import { statsdStart, statsdStop } from '../../report/index.ts';
import type { ReportOptions } from '../../report/types.ts';
import type { Clock } from '../../util/clock.ts';
import { errorText } from '../../util/errors.ts';
import type { Logger } from '../../util/log.ts';
import type { RunState } from '../model.ts';
import { apply } from '../reducer.ts';
import { applyCompletions } from './completions.ts';
import { launchSpecOfTask } from './launch-spec.ts';
import { liveRedactor } from './redact-stream.ts';
import { GroupSampler, type TaskResources, taskMonitor } from './resources.ts';
import { type RunStore, runMapKey } from './run-store.ts';
import { type InstanceOutcome, sendTaskReport } from './task-report.ts';

export interface DagTasksDeps {
  runs: RunStore;
  clock: Clock;
  log: Logger;
  launch: (spec: LaunchSpec, opts: LaunchOptions) => RunHandle;
  registry: RunRegistry | null;
  /** This daemon process's token, stamped on pids and completions (fencing). */
  proc: string;
  /** The configured DAG of that name (a completion of a removed DAG changes nothing). */
  dag(name: string): DagConfig | undefined;
  /** A recorded completion wakes the run's advancer, if it is here. */
  wake(dag: string, runKey: string): void;
  owns(dag: string, runKey: string): boolean;
  /** The daemon's push channel (spec 10 §6.3). */
  push?: ReportOptions['push'];
}

/** One task process this node launched, until its completion is recorded. */
interface Launched {
  dag: string;
  runKey: string;
  taskKey: string;
  handle: RunHandle;
  /** Live-output followers (the logs route): each line as it arrives, then 'end'. */
  listeners: Set<LiveSink>;
  /** The task's staged secret values, redacted from what the logs route serves. */
  secrets: string[];
  /** Resolves once the completion is recorded (or fenced out). */
  recorded: Promise<void>;
}

export type LiveSink = (event: OutputLine | 'end') => void;

/**
 * A running task instance's output (the logs route, through the web layer's `DagWebApi`): the ring so far,
 * `published` = lines it ever wrote (the ring keeps the newest), `startedAt` (epoch ms) tells one instance
 * from the next, and a follow that returns its unsubscribe.
 */
export interface LiveTaskOutput {
  lines: OutputLine[];
  published: number;
  startedAt: number;
  follow(fn: LiveSink): () => void;
}

/** One attempt's or poke's verdict, as the completion reports it. */
interface Verdict {
  ok: boolean;
  exitCode: number | null;
  failReason: string | null;
  jitter?: number;
  resources?: TaskResources | null;
}

/** What one launch reports back, fenced on its attempt and poke count. */
interface Completion extends Verdict {
  attempt: number;
  pokeCount: number | null;
}

interface CompletionQueue {
  dag: string;
  runKey: string;
  /** `resolve(landed)`: whether the completion changed its entry (false: fenced out, or the run is gone). */
  items: { taskKey: string; ev: Completion; resolve: (landed: boolean) => void }[];
  flushing: boolean;
}

export class DagTasks {
  private readonly launched = new Set<Launched>();
  private readonly completions = new Map<string, CompletionQueue>();
  /** Set at shutdown: nothing is reported from then on (spec 09 §4.3). */
  private quiet = false;

  constructor(private readonly deps: DagTasksDeps) {}

  /** Shutdown has begun: instances finishing from now on send no reports. */
  silenceReports(): void {
    this.quiet = true;
  }

  /**
   * An instance's report (spec 09 §4.3), once its transition is recorded: fire-and-forget, so the graph
   * never waits on a reporter. A sensor's not-yet-ready poke is not a failure here (§4.4 item 2): only
   * its poke timeout (`reportSensorTimeout`) or its success reports.
   */
  private report(dag: DagConfig, runId: string, task: DagTaskConfig, outcome: InstanceOutcome): void {
    if (this.quiet || task.type === 'approval' || (task.type === 'sensor' && !outcome.ok)) return;
    void sendTaskReport(this.deps.log, dag, task, runId, outcome, this.deps.push);
  }

  /** A sensor that timed out failed as a task (the advance pass recorded it): its `onFailure` report. */
  reportSensorTimeout(dag: DagConfig, run: RunState, taskKey: string): void {
    const entry = run.tasks[taskKey];
    const task = dag.tasks.find((t) => t.id === entry?.id);
    if (this.quiet || !entry || task?.type !== 'sensor') return;
    void sendTaskReport(
      this.deps.log,
      dag,
      task,
      run.runId,
      {
        ok: false,
        failReason: entry.failReason,
        exitCode: entry.exitCode,
        startedAtMs: entry.startedAt === null ? null : entry.startedAt * 1000,
        result: null,
      },
      this.deps.push,
    );
  }

  private nowS(): number {
    return this.deps.clock.now() / 1000;
  }

  /** Launch one claimed task instance (its run-scoped secrets first, §6.3). */
  spawn(dag: DagConfig, run: RunState, taskKey: string, attempt: number, pokeCount: number | null): void {
    const entry = run.tasks[taskKey];
    const task = dag.tasks.find((t) => t.id === entry?.id);
    if (!entry || !task) return;
    if (task.secrets.length === 0) {
      this.spawnNow(dag, run, task, taskKey, attempt, pokeCount, {});
      return;
    }
    // Run-scoped secrets (§6.3): one that fails to resolve is simply absent (`secret get` exits 4).
    const warnings: SecretWarning[] = [];
    void resolveRunSecrets(task.secrets, process.env, warnings)
      .catch(() => ({}))
      .then((secrets) => {
        for (const w of warnings)
          this.deps.log.warning(`dag task ${task.launchName}: secret '${w.name}' is not staged: ${w.reason}`);
        this.spawnNow(dag, run, task, taskKey, attempt, pokeCount, secrets);
      });
  }

  private spawnNow(
    dag: DagConfig,
    run: RunState,
    task: DagTaskConfig,
    taskKey: string,
    attempt: number,
    pokeCount: number | null,
    secrets: Record<string, string>,
  ): void {
    const entry = run.tasks[taskKey]!;
    const log = this.deps.log;
    const xcomScope = `dagxcom/${dag.name}/${run.runId}`;
    let creds: RunCredentials | null = null;
    const record = (ev: Verdict) => this.complete(dag, run.runKey, taskKey, { ...ev, attempt, pokeCount });
    const launchedAt = this.deps.clock.now();
    let handle: RunHandle;
    const listeners = new Set<LiveSink>();
    try {
      creds =
        this.deps.registry?.register({
          jobName: task.launchName,
          attempt,
          scheduledAt: null,
          defaultScope: xcomScope,
          allowedScopes: task.stateAllowedScopes,
          secrets,
          dag: {
            name: dag.name,
            runId: run.runId,
            runKey: run.runKey,
            task: task.id,
            taskKey,
            mapIndex: entry.mapIndex,
            mapItem: entry.mapItem,
            xcomScope,
          },
        }) ?? null;
      handle = this.deps.launch(launchSpecOfTask(task), {
        injectedEnv: creds?.env ?? {},
        onLine: (line) => {
          for (const fn of listeners) fn(line);
        },
        onWarning: (m) => log.warning(m),
        onInfo: (m) => log.info(m),
        now: () => this.deps.clock.now(),
      });
    } catch (e) {
      log.error(`dag task ${task.launchName} (${run.runKey}/${taskKey}): launch error: ${errorText(e)}`);
      if (creds) void this.deps.registry?.unregister(creds.token);
      const verdict = { ok: false, exitCode: 127, failReason: 'launch error' };
      void record(verdict).then((landed) => {
        if (landed) this.report(dag, run.runId, task, { ...verdict, startedAtMs: launchedAt, result: null });
      });
      return;
    }
    log.info(`dag task ${task.launchName} started (${run.runKey}/${taskKey}, attempt ${attempt})`);
    const item: Launched = {
      dag: dag.name,
      runKey: run.runKey,
      taskKey,
      handle,
      listeners,
      secrets: Object.values(secrets),
      recorded: Promise.resolve(),
    };
    // statsd and resource sampling start with the process (spec 04 §11, spec 02 §12): no start
    // metric and no sample for a launch that never got a pid.
    const statsd = task.statsd ? { ...task.statsd, job: task.launchName } : null;
    const monitor = taskMonitor(task.monitorResources);
    let sampler: GroupSampler | null = null;
    let statsdStarted = false;
    const pidReport = (pid: number | null) => {
      if (pid === null) return;
      if (statsd) {
        statsdStarted = true;
        void statsdStart(statsd, log);
      }
      if (monitor) sampler = new GroupSampler(pid, monitor.interval, this.deps.clock);
      void this.deps.runs
        .mutate(dag.name, run.runKey, (r) =>
          apply(r, dag, { type: 'pid', taskKey, proc: this.deps.proc, attempt, pid, now: this.nowS() }),
        )
        .catch((e) => log.warning(`dag task ${task.launchName}: pid write failed: ${errorText(e)}`));
    };
    if (handle.pid !== null) pidReport(handle.pid);
    else void handle.started?.then(pidReport, () => undefined);
    const stopSampling = (): TaskResources | null => (sampler as GroupSampler | null)?.stop() ?? null;
    item.recorded = handle.done.then(
      async (res: RunResult) => {
        for (const fn of listeners) fn('end');
        const resources = stopSampling();
        if (creds) await this.deps.registry?.unregister(creds.token);
        const ok = !res.startFailed && res.failReason === null;
        const failReason = res.startFailed ? 'launch failed' : res.failReason;
        if (statsd && statsdStarted)
          void statsdStop(
            statsd,
            {
              success: ok,
              durationMs: Math.round(res.durationSeconds * 1000),
              ...(resources
                ? { cpuMs: Math.round(resources.cpuSeconds * 1000), maxRssBytes: resources.maxRssBytes }
                : {}),
            },
            log,
          );
        log.info(
          `dag task ${task.launchName} (${run.runKey}/${taskKey}) finished: ${ok ? 'success' : `failed (${failReason})`}`,
        );
        const landed = await record({
          ok,
          exitCode: res.exitCode,
          failReason,
          jitter: Math.random(),
          ...(monitor ? { resources } : {}),
        });
        // A cancelled instance (shutdown, replaced) reports nothing.
        if (landed && res.cancelReason === null)
          this.report(dag, run.runId, task, {
            ok,
            failReason,
            exitCode: res.exitCode,
            startedAtMs: res.startedAt,
            result: res,
            resources,
          });
      },
      async (e: unknown) => {
        stopSampling();
        if (creds) await this.deps.registry?.unregister(creds.token);
        log.error(`dag task ${task.launchName}: run failed unexpectedly: ${errorText(e)}`);
        await record({ ok: false, exitCode: 127, failReason: 'launch error' });
      },
    );
    this.launched.add(item);
    void item.recorded.finally(() => this.launched.delete(item));
  }

  /**
   * A fenced completion (§7.5). Completions of one run queue up and land together in one CAS (a
   * fan-in of a thousand instances is a handful of writes, not a thousand); a failed write is retried
   * 5 s later, doubling to 60 s, until it lands (fencing makes a repeat harmless).
   */
  private complete(dag: DagConfig, runKey: string, taskKey: string, ev: Completion): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const key = runMapKey(dag.name, runKey);
      let q = this.completions.get(key);
      if (!q) {
        q = { dag: dag.name, runKey, items: [], flushing: false };
        this.completions.set(key, q);
      }
      q.items.push({ taskKey, ev, resolve });
      void this.flush(q, key);
    });
  }

  private async flush(q: CompletionQueue, key: string): Promise<void> {
    if (q.flushing) return;
    q.flushing = true;
    let backoff = 5_000;
    while (q.items.length > 0) {
      const batch = q.items.splice(0);
      try {
        const out = await this.deps.runs.mutate(q.dag, q.runKey, (run) => {
          const dag = this.deps.dag(q.dag);
          if (!dag) return { run, changed: false, touched: [] };
          const now = this.nowS();
          return applyCompletions(
            run,
            dag,
            batch.map(({ taskKey, ev }) => ({
              type: 'complete' as const,
              taskKey,
              proc: this.deps.proc,
              attempt: ev.attempt,
              pokeCount: ev.pokeCount,
              ok: ev.ok,
              exitCode: ev.exitCode,
              failReason: ev.failReason,
              ...(ev.jitter === undefined ? {} : { jitter: ev.jitter }),
              ...(ev.resources === undefined ? {} : { resources: ev.resources }),
              now,
            })),
          );
        });
        const landed = new Set(out?.touched ?? []);
        for (const b of batch) b.resolve(landed.has(b.taskKey));
        backoff = 5_000;
        this.deps.wake(q.dag, q.runKey);
      } catch (e) {
        this.deps.log.warning(
          `dag run ${q.dag}/${q.runKey}: recording ${batch.map((b) => b.taskKey).join(', ')} failed (retrying in ${backoff / 1000} s): ${errorText(e)}`,
        );
        q.items.unshift(...batch);
        await new Promise<void>((r) => this.deps.clock.setTimer(r, backoff));
        backoff = Math.min(60_000, backoff * 2);
      }
    }
    q.flushing = false;
    if (this.completions.get(key) === q && q.items.length === 0) this.completions.delete(key);
    if (!this.deps.owns(q.dag, q.runKey)) this.deps.runs.forget(q.dag, q.runKey);
  }

  /**
   * Live output of a task instance running here (the logs route): its ring so far and a follow,
   * secrets redacted (see redact-stream.ts); the daemon's own console keeps the raw lines.
   */
  liveTask(dag: string, runKey: string, taskKey: string): LiveTaskOutput | null {
    for (const l of this.launched)
      if (l.dag === dag && l.runKey === runKey && l.taskKey === taskKey) {
        const redact = liveRedactor(l.secrets);
        const live = l.handle.liveOutput();
        return {
          lines: redact.replay(live.lines),
          published: live.published,
          startedAt: l.handle.startedAt,
          follow: (fn) => {
            const sink: LiveSink = (e) => fn(e === 'end' ? e : redact.next(e));
            l.listeners.add(sink);
            return () => l.listeners.delete(sink);
          },
        };
      }
    return null;
  }

  /** Running task processes here (for logs / status). */
  get count(): number {
    return this.launched.size;
  }

  /** One promise per running task, settled once its completion is recorded (or fenced out). */
  recordedAll(): Promise<void>[] {
    return [...this.launched].map((l) => l.recorded);
  }

  /** Cancel every running task now (shutdown). */
  async cancelAll(): Promise<void> {
    await Promise.allSettled([...this.launched].map((l) => l.handle.cancel('shutdown')));
  }
}
