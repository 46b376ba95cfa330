// Shared by the dag-* unit tests (and test/integration/dag-engine-fire.test.ts): DAGs from YAML
// through the real config loader, DAGs built directly (for generated shapes), and a driver that
// plays the advancing daemon against the pure planner and reducers.
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.ts';
import type { DagConfig } from '../../src/config/types.ts';
import {
  type Action,
  apply,
  claimPass,
  type DagEvent,
  newRun,
  type Pass,
  type RunState,
} from '../../src/dag/index.ts';
import { writeTree } from '../helpers/tmp.ts';

export const T0 = Date.parse('2026-07-05T09:03:00Z') / 1000;

/** DAGs loaded exactly as the daemon loads them (a `state:` section is required for `dags:`). */
export function loadDags(dagsYaml: string): DagConfig[] {
  const dir = writeTree({ 'conf.yaml': `state:\n  path: /tmp/cronstable-dag-test\ndags:\n${dagsYaml}` });
  return loadConfig(join(dir, 'conf.yaml'), { nowMs: T0 * 1000, cwd: dir, euid: 0 }).dags;
}

export { makeDag, type TaskSpec } from '../helpers/dag-config.ts';

export type Launch = Extract<Action, { type: 'launch' }>;

/** Plays one advancing daemon: claim passes, completions, decisions, crashes, all through the reducers. */
export class Driver {
  run: RunState;
  now: number;
  proc = 'proc-a';
  host = 'host-a';
  readonly launched: Launch[] = [];
  readonly passes: Pass[] = [];

  constructor(
    public dag: DagConfig,
    opts: { now?: number; runKey?: string } = {},
  ) {
    this.now = opts.now ?? T0;
    this.run = newRun(dag, {
      runKey: opts.runKey ?? 'manual-000000000000',
      runId: '0'.repeat(32),
      logicalDate: null,
      kind: 'manual',
      now: this.now,
    });
  }

  /** One claim pass; `lists` answers the expand reads (by task id) the pass before asked for. */
  pass(lists: Record<string, unknown[]> = {}, maxLaunches?: number): Pass {
    const p = claimPass(this.run, this.dag, {
      now: this.now,
      proc: this.proc,
      host: this.host,
      expansions: new Map(Object.entries(lists)),
      ...(maxLaunches === undefined ? {} : { maxLaunches }),
    });
    this.run = p.run;
    this.launched.push(...p.launches);
    this.passes.push(p);
    return p;
  }

  event(ev: DagEvent) {
    const r = apply(this.run, this.dag, ev);
    this.run = r.run;
    return r;
  }

  /** Completes the current claim of `key` (fenced with its attempt and poke count). */
  complete(
    key: string,
    ok: boolean,
    extra: { exitCode?: number; failReason?: string; jitter?: number } = {},
  ) {
    const e = this.run.tasks[key]!;
    return this.event({
      type: 'complete',
      taskKey: key,
      proc: e.proc ?? this.proc,
      attempt: e.attempt,
      pokeCount: e.pokeCount ?? null,
      ok,
      exitCode: extra.exitCode ?? (ok ? 0 : 1),
      failReason: ok ? null : (extra.failReason ?? 'failsWhen=nonzeroReturn and retcode=1'),
      jitter: extra.jitter ?? 0,
      now: this.now,
    });
  }

  decide(key: string, decision: 'approve' | 'reject', by = 'me') {
    return this.event({ type: 'decision', taskKey: key, decision, by, now: this.now });
  }

  state(key: string) {
    return this.run.tasks[key]?.state;
  }

  runningKeys(): string[] {
    return Object.keys(this.run.tasks).filter((k) => {
      const e = this.run.tasks[k]!;
      return e.state === 'running' && e.proc !== null;
    });
  }
}
