// The DAG routes' answers (spec 04 §9, spec 06 §5.13/§11) over the engine and the store. The shape
// matches the web layer's `DagWebApi` structurally, so this module does not depend on `web`.
import type { DagConfig } from '../../config/types.ts';
import type { Store } from '../../store/types.ts';
import { errorText } from '../../util/errors.ts';
import { planBackfill, previewBackfill } from '../backfill.ts';
import type { DagEngine, LiveTaskOutput } from './engine.ts';

export type EngineAnswer =
  | { ok: true; body: unknown }
  | { ok: false; status: 400 | 404 | 409 | 500; error: string };

/** XCom values up to this size are inlined as text (§9). */
const INLINE_MAX = 65_536;
const XCOM_MAX_ENTRIES = 500;

// The 404 texts of spec 10 §4.9.
const unknownDag = (name: string): EngineAnswer => ({
  ok: false,
  status: 404,
  error: `dag '${name}' not found`,
});
const unknownRun = (name: string, runKey: string): EngineAnswer => ({
  ok: false,
  status: 404,
  error: `dag '${name}' has no run '${runKey}'`,
});

export function dagSummary(d: DagConfig) {
  return {
    name: d.name,
    enabled: d.enabled,
    scheduled: d.cron !== null,
    retainRuns: d.retainRuns,
    ...(d.cron !== null && d.scheduleText ? { schedule: d.scheduleText } : {}),
    tasks: d.tasks.map((t) => ({
      id: t.id,
      type: t.type,
      dependsOn: [...new Set(t.dependsOn)],
      triggerRule: t.triggerRule,
      retries: t.retries,
      mapped: t.expand !== null,
    })),
  };
}

/** Entries in config order, instances in index order after their placeholder (how people read a run). */
function inConfigOrder<T extends { id: string; mapIndex: number | null }>(
  dag: DagConfig,
  tasks: Record<string, T>,
): Record<string, T> {
  const pos = new Map(dag.tasks.map((t, i) => [t.id, i]));
  const rank = (e: T) => [pos.get(e.id) ?? Number.MAX_SAFE_INTEGER, e.mapIndex ?? -1] as const;
  const keys = Object.keys(tasks).sort((a, b) => {
    const [x, i] = rank(tasks[a]!);
    const [y, j] = rank(tasks[b]!);
    return x - y || i - j || (a < b ? -1 : 1);
  });
  const out: Record<string, T> = {};
  for (const k of keys) out[k] = tasks[k]!;
  return out;
}

export class DagApi {
  constructor(private readonly engine: DagEngine) {}

  private get store(): Store {
    return this.engine.store;
  }

  async list(): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const d of this.engine.list()) {
      const item: Record<string, unknown> = dagSummary(d);
      try {
        const s = await this.store.dagRunStats(d.name);
        if (s.total > 0 && s.latest) {
          const l = s.latest;
          item.latestRun = {
            runKey: l.runKey,
            state: l.state,
            kind: l.kind,
            createdAt: l.createdAt,
            updatedAt: l.updatedAt,
          };
          item.runCounts = s.counts;
          item.totalRuns = s.total;
        }
      } catch {
        // A store failure just omits the rollups (§9).
      }
      out.push(item);
    }
    return out;
  }

  async runs(dag: string, limit: number): Promise<EngineAnswer> {
    if (!this.engine.configured(dag)) return unknownDag(dag);
    try {
      return { ok: true, body: { dag, name: dag, runs: await this.store.dagRunList(dag, limit) } };
    } catch (e) {
      return { ok: false, status: 500, error: errorText(e) };
    }
  }

  async run(dag: string, runKey: string): Promise<EngineAnswer> {
    if (!this.engine.configured(dag)) return unknownDag(dag);
    const got = await this.store.dagRunGet(dag, runKey);
    if (!got) return unknownRun(dag, runKey);
    return {
      ok: true,
      body: { ...got.run, tasks: inConfigOrder(this.engine.configured(dag)!, got.run.tasks) },
    };
  }

  async xcom(dag: string, runKey: string): Promise<EngineAnswer> {
    if (!this.engine.configured(dag)) return unknownDag(dag);
    const got = await this.store.dagRunGet(dag, runKey);
    if (!got) return unknownRun(dag, runKey);
    const runId = got.run.runId;
    const scope = `dagxcom/${dag}/${runId}`;
    const entries: Record<string, unknown>[] = [];
    let truncated = false;
    try {
      const list = (await this.store.artifactList(scope)).sort((a, b) => (a.name < b.name ? -1 : 1));
      truncated = list.length > XCOM_MAX_ENTRIES;
      for (const a of list.slice(0, XCOM_MAX_ENTRIES)) {
        const slash = a.name.indexOf('/');
        const e: Record<string, unknown> = {
          taskkey: slash < 0 ? a.name : a.name.slice(0, slash),
          key: slash < 0 ? '' : a.name.slice(slash + 1),
          sha256: a.sha256,
          size: a.size,
          at: a.at,
        };
        if (a.size > INLINE_MAX) e.oversize = true;
        else {
          const v = await this.store.artifactGet(scope, a.name);
          if (v && v !== 'gone') {
            try {
              e.value = new TextDecoder('utf-8', { fatal: true }).decode(v.bytes);
            } catch {
              e.binary = true;
            }
          }
        }
        entries.push(e);
      }
    } catch {
      // A store error degrades to empty entries (§9).
    }
    return { ok: true, body: { dag, runKey, runId, entries, truncated } };
  }

  async trigger(dag: string): Promise<EngineAnswer> {
    const d = this.engine.configured(dag);
    if (!d) return unknownDag(dag);
    try {
      return { ok: true, body: { dag, name: dag, runKey: await this.engine.trigger(d) } };
    } catch (e) {
      return { ok: false, status: 500, error: `could not record the run: ${errorText(e)}` };
    }
  }

  backfillPreview(dag: string, body: Record<string, unknown>): EngineAnswer {
    const p = previewBackfill(this.engine.configured(dag), body.from, body.to);
    if (!p.ok) return { ok: false, status: 400, error: p.reason };
    const { ok: _, ...walk } = p;
    return {
      ok: true,
      body: { dag, from: body.from, to: body.to, dryRun: true, wouldExecute: false, ...walk },
    };
  }

  async backfill(dag: string, body: Record<string, unknown>): Promise<EngineAnswer> {
    const d = this.engine.configured(dag);
    const p = planBackfill(d, body.from, body.to);
    if (!p.ok || !d) return { ok: false, status: 400, error: p.ok ? 'no such scheduled dag' : p.reason };
    try {
      for (const r of p.runs) await this.engine.createRun(d, r);
    } catch (e) {
      return { ok: false, status: 500, error: `could not record the runs: ${errorText(e)}` };
    }
    return { ok: true, body: { ok: true, created: p.created } };
  }

  async decide(
    dag: string,
    runKey: string,
    task: string,
    body: Record<string, unknown>,
  ): Promise<EngineAnswer> {
    const decision = body.decision;
    if (decision !== 'approve' && decision !== 'reject')
      return { ok: false, status: 400, error: "decision must be 'approve' or 'reject'" };
    const by = typeof body.by === 'string' && body.by !== '' ? body.by : 'api';
    const d = this.engine.configured(dag);
    if (!d) return { ok: false, status: 409, error: 'no such dag' };
    try {
      const r = await this.engine.decide(d, runKey, task, decision, by);
      return r.ok
        ? { ok: true, body: { ok: true, state: r.state } }
        : { ok: false, status: 409, error: r.reason };
    } catch (e) {
      return { ok: false, status: 500, error: errorText(e) };
    }
  }

  taskOutput(dag: string, runKey: string, task: string): LiveTaskOutput | 'idle' | null {
    if (!this.engine.configured(dag)) return null;
    return this.engine.liveTask(dag, runKey, task) ?? 'idle';
  }
}
