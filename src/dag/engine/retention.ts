// Retention and garbage collection of DAG runs (spec 04 §10): each node publishes a manifest of the
// DAGs it has (and their retainRuns); the hourly pass prunes each configured DAG to the largest
// retainRuns any node advertises and collects the terminal runs of DAGs no node has had for the grace
// window. Any store failure skips the rest of the pass: nothing is deleted on a guess.
import type { DagConfig } from '../../config/types.ts';
import type { Json, Store } from '../../store/types.ts';
import type { Clock } from '../../util/clock.ts';
import { errorText } from '../../util/errors.ts';
import type { Logger } from '../../util/log.ts';
import {
  type DagManifest,
  effectiveRetain,
  MANIFEST_PREFIX,
  nextManifest,
  parseManifest,
  planRemovedGc,
  staleCheckpointStreams,
} from '../gc.ts';

export interface DagRetentionDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  host: string;
  /** `state.gcGraceSeconds` (<= 0 disables collecting removed DAGs). */
  graceSeconds: number;
  /** The DAGs configured here now. */
  dags(): DagConfig[];
}

export interface RetentionPass {
  pruned: number;
  collected: number;
  deferred: string | null;
}

export class DagRetention {
  constructor(private readonly deps: DagRetentionDeps) {}

  /** Writes this node's manifest (its DAG names, when it last had each, their retainRuns). */
  async publishManifest(): Promise<DagManifest> {
    const stream = `${MANIFEST_PREFIX}${this.deps.host}`;
    const prevRec = await this.deps.store.newest(stream);
    const prev = prevRec ? parseManifest(this.deps.host, prevRec.data) : null;
    const m = nextManifest(
      this.deps.host,
      prev,
      this.deps.dags(),
      this.deps.clock.now() / 1000,
      this.deps.graceSeconds,
    );
    const dags: Record<string, Json> = {};
    for (const [name, d] of Object.entries(m.dags))
      dags[name] = { seenAt: d.seenAt, retainRuns: d.retainRuns };
    await this.deps.store.append(stream, { since: m.since, dags }, { keep: 2 });
    return m;
  }

  /** Every node's newest manifest; names of those that could not be read. */
  private async readManifests(): Promise<{ manifests: DagManifest[]; unreadable: string[] }> {
    const manifests: DagManifest[] = [];
    const unreadable: string[] = [];
    for (const s of await this.deps.store.streams(MANIFEST_PREFIX)) {
      const host = s.stream.slice(MANIFEST_PREFIX.length);
      let m: DagManifest | null = null;
      try {
        const rec = await this.deps.store.newest(s.stream);
        m = rec ? parseManifest(host, rec.data) : null;
      } catch {
        m = null;
      }
      if (m) manifests.push(m);
      else unreadable.push(host);
    }
    return { manifests, unreadable };
  }

  /**
   * The hourly pass: publish this node's manifest, prune each configured DAG to the largest
   * `retainRuns` any node advertises, then collect terminal runs of DAGs no node has had for the
   * grace window. Any store failure skips the rest of the pass (nothing is deleted on a guess).
   */
  async retention(): Promise<RetentionPass> {
    const out: RetentionPass = { pruned: 0, collected: 0, deferred: null };
    let known: { manifests: DagManifest[]; unreadable: string[] };
    try {
      await this.publishManifest();
      known = await this.readManifests();
    } catch (e) {
      this.deps.log.warning(`dag: retention skipped, the dag manifests could not be read: ${errorText(e)}`);
      out.deferred = 'manifests unreadable';
      return out;
    }
    const now = this.deps.clock.now() / 1000;
    for (const dag of this.deps.dags()) {
      try {
        const keep = effectiveRetain(dag.name, dag.retainRuns, known.manifests, now, this.deps.graceSeconds);
        const n = await this.deps.store.dagRunPrune(dag.name, keep);
        out.pruned += n;
        if (n > 0) this.deps.log.info(`dag ${dag.name}: retention removed ${n} terminal run(s)`);
      } catch (e) {
        this.deps.log.warning(`dag ${dag.name}: retention failed: ${errorText(e)}`);
      }
    }
    const plan = planRemovedGc({
      configured: this.deps.dags().map((d) => d.name),
      manifests: known.manifests,
      unreadable: known.unreadable,
      now,
      graceSeconds: this.deps.graceSeconds,
    });
    if (!plan.collect) {
      out.deferred = plan.reason;
      this.deps.log.debug(`dag: removed-dag gc deferred: ${plan.reason}`);
      return out;
    }
    try {
      out.collected = await this.deps.store.dagRunPruneRemoved(plan.keep, plan.cutoff);
      const stale = staleCheckpointStreams(
        await this.deps.store.streams('catchup-dag/'),
        plan.keep,
        plan.cutoff,
      );
      for (const stream of stale) await this.deps.store.deleteStream(stream);
      if (out.collected > 0)
        this.deps.log.info(`dag: gc removed ${out.collected} terminal run(s) of dags no longer configured`);
    } catch (e) {
      this.deps.log.warning(`dag: gc of removed dags failed: ${errorText(e)}`);
    }
    return out;
  }
}
