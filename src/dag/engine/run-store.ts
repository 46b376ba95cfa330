// Run documents over the store (spec 04 §4, §14.6): every change is a pure transform applied in a
// compare-and-set on the run's version, so concurrent writers (the advancer, a decision on another
// node, a completion) serialise and none of them is lost. Only the entries a transform touched are
// written, so a pass over a 10k-task run writes a handful of rows.
import type { Store, StoredDagRun, StoredDagTask } from '../../store/types.ts';
import type { RunState } from '../model.ts';

/** A transform's answer: the new document, whether it changed and which entries it touched. */
export interface Transformed {
  run: RunState;
  changed: boolean;
  touched: readonly string[];
}

/** The map key of one run (DAG name and run key; NUL cannot occur in either). */
export const runMapKey = (dag: string, runKey: string): string => `${dag}\u0000${runKey}`;

/** How many times a CAS is retried against concurrent writers before giving up for this call. */
const CAS_ATTEMPTS = 20;

export class RunStore {
  /** Per-run tail of this process's writes: its own writers queue instead of racing each other. */
  private readonly tails = new Map<string, Promise<unknown>>();
  /**
   * The last document this process read or wrote per run, with its version: while nobody else wrote
   * the run (the usual case on its owner), a CAS reads one integer instead of every task row.
   */
  private readonly cache = new Map<string, { run: RunState; version: number }>();

  constructor(private readonly store: Store) {}

  /** Runs `fn` after every earlier write of this process to the same run has settled. */
  private serial<T>(dag: string, runKey: string, fn: () => Promise<T>): Promise<T> {
    const key = runMapKey(dag, runKey);
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  async get(dag: string, runKey: string): Promise<{ run: RunState; version: number } | null> {
    const got = await this.store.dagRunGet(dag, runKey);
    return got ? { run: got.run as unknown as RunState, version: got.version } : null;
  }

  /** Forget a run's cached document (it went terminal here, or its ownership moved). */
  forget(dag: string, runKey: string): void {
    this.cache.delete(runMapKey(dag, runKey));
  }

  /** Create-if-absent (§4.2): false when the key already had a document. */
  async create(run: RunState): Promise<boolean> {
    return (await this.store.dagRunCreate(run as unknown as StoredDagRun)).created;
  }

  /**
   * Read, transform, write back if changed; re-read and retry when another writer won. Resolves with
   * the transform's answer on the document it applied to, or null when the run does not exist.
   */
  mutate<T extends Transformed>(dag: string, runKey: string, fn: (run: RunState) => T): Promise<T | null> {
    return this.serial(dag, runKey, () => this.cas(dag, runKey, fn));
  }

  private async cas<T extends Transformed>(
    dag: string,
    runKey: string,
    fn: (run: RunState) => T,
  ): Promise<T | null> {
    const key = runMapKey(dag, runKey);
    for (let i = 0; i < CAS_ATTEMPTS; i++) {
      let cur = this.cache.get(key) ?? null;
      if (cur && (await this.store.dagRunVersion(dag, runKey)) !== cur.version) cur = null;
      cur ??= await this.get(dag, runKey);
      if (!cur) {
        this.cache.delete(key);
        return null;
      }
      this.cache.set(key, cur);
      const out = fn(cur.run);
      if (!out.changed) return out;
      const tasks: Record<string, StoredDagTask> = {};
      for (const key of out.touched) {
        const e = out.run.tasks[key];
        if (e) tasks[key] = e;
      }
      const w = await this.store.dagRunWrite({
        dag,
        runKey,
        version: cur.version,
        state: out.run.state,
        updatedAt: out.run.updatedAt,
        mapped: out.run.mapped,
        tasks,
      });
      if (w.ok) {
        this.cache.set(key, { run: out.run, version: w.version });
        return out;
      }
    }
    throw new Error(`dag run ${dag}/${runKey}: too many concurrent writers`);
  }
}
