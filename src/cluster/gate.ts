// The cluster gate (spec 05 §3): whether this node runs one fire of a job or a DAG. The
// scheduler asks it per fire through its `ClusterGate` interface (src/scheduler/gate.ts, matched
// structurally: the cluster layer does not import the scheduler). Rows 1-3 and 8 of the §3.1
// table live here; rows 4-7 are the backend's `decide`.
import type { JobConfig } from '../config/types.ts';
import type { Clock } from '../util/clock.ts';
import { errorText } from '../util/errors.ts';
import type { ClusterBackend, GatedPolicy, Leadership } from './types.ts';

export type ClusterPolicy = GatedPolicy | 'EveryNode';
export type FireKind = 'schedule' | 'retry' | 'reboot';

/** The scheduler's gate answer (same shape as `GateDecision` in src/scheduler/gate.ts). */
export type GateAnswer =
  | { run: true }
  | { run: false; reason: string; noQuorum?: true }
  | { run: false; reason: string; deferUntil: number };

/**
 * One decision of the §3.1 table; `transient` = may clear by itself (no quorum, conflict...);
 * `noQuorum` = denied for want of quorum.
 */
export type Verdict = Leadership;

/** What the gate reads, live, at every fire. */
export interface GateSource {
  /** A `cluster:` section with `electLeader` in force (lease backends: always). */
  electionOn(): boolean;
  /** The running backend; null when none runs (start rejected, being rebuilt, no cluster). */
  backend(): ClusterBackend | null;
}

/** The synthetic name a scheduled DAG is gated (and spread-hashed) under (spec 05 §3). */
export function dagGateName(dag: string): string {
  return `dag:${dag}`;
}

const RUN: { run: true } = { run: true };

/** Spec 05 §3.1, in order, for one fire of `name` under `policy`. Pure over `source`. */
export function decideFire(source: GateSource, name: string, policy: ClusterPolicy): Verdict {
  try {
    if (!source.electionOn()) return RUN;
    if (policy === 'EveryNode') return RUN;
    const backend = source.backend();
    if (!backend) {
      return policy === 'PreferLeader'
        ? RUN
        : { run: false, reason: 'the cluster backend is not running', transient: true };
    }
    const d = backend.decide(name, policy);
    return d.run ? RUN : d;
  } catch (e) {
    return { run: false, reason: `cluster gate failed (fail closed): ${errorText(e)}`, transient: true };
  }
}

export interface FleetGateOptions {
  clock: Clock;
  /** How soon a deferred retry or a pending @reboot asks again, ms. */
  recheckMs?: number;
  warn?(message: string): void;
}

/**
 * The gate the daemon hands the scheduler. Scheduled fires: run or skip. Retries (§3.2): a
 * transient denial defers, a positive ownership move ends the retry. `@reboot` (§3.3): under
 * Leader/PreferLeader the one-shot stays pending until the gate first allows it and the fleet
 * has not run it under this job set; the run is recorded with the backend before it launches.
 */
export class FleetGate {
  private readonly recheckMs: number;

  constructor(
    private readonly source: GateSource,
    private readonly o: FleetGateOptions,
  ) {
    this.recheckMs = Math.max(250, o.recheckMs ?? 5000);
  }

  private later(): number {
    return this.o.clock.now() + this.recheckMs;
  }

  decide(job: JobConfig, _scheduledAt: number | null, kind: FireKind): GateAnswer | Promise<GateAnswer> {
    if (kind === 'reboot') return this.reboot(job);
    const v = decideFire(this.source, job.name, job.clusterPolicy);
    if (v.run) return RUN;
    if (kind === 'retry') {
      if (v.transient) return { run: false, reason: v.reason, deferUntil: this.later() };
      return { run: false, reason: `cluster ownership moved to another node (${v.reason})` };
    }
    return v.noQuorum ? { run: false, reason: v.reason, noQuorum: true } : { run: false, reason: v.reason };
  }

  /** A scheduled DAG fire (gated like a job named `dag:<name>`): run or skip with a reason. */
  decideDag(dag: string, policy: ClusterPolicy): Verdict {
    return decideFire(this.source, dagGateName(dag), policy);
  }

  private reboot(job: JobConfig): GateAnswer | Promise<GateAnswer> {
    const policy = job.clusterPolicy;
    const pending = (reason: string): GateAnswer => ({
      run: false,
      reason: `@reboot pending: ${reason}`,
      deferUntil: this.later(),
    });
    let backend: ClusterBackend | null;
    try {
      if (!this.source.electionOn() || policy === 'EveryNode') return RUN;
      backend = this.source.backend();
    } catch (e) {
      return pending(`cluster gate failed: ${errorText(e)}`);
    }
    if (!backend) return policy === 'PreferLeader' ? RUN : pending('the cluster backend is not running');
    const name = job.name;
    try {
      const ran = backend.rebootRan(name);
      if (ran === true)
        return { run: false, reason: 'the fleet already ran this @reboot job under the current job set' };
      if (ran === 'unknown') return pending('the fleet has not read its record of @reboot runs yet');
    } catch (e) {
      return pending(`reading the @reboot record failed: ${errorText(e)}`);
    }
    const v = decideFire(this.source, name, policy);
    if (!v.run) return pending(v.reason);
    return backend.recordRebootRan(name).then(
      () => RUN,
      (e: unknown) => {
        if (policy === 'PreferLeader') {
          this.o.warn?.(
            `Job ${name}: recording its @reboot run with the cluster failed (${errorText(e)}); PreferLeader runs it anyway`,
          );
          return RUN;
        }
        return pending(`recording the @reboot run failed: ${errorText(e)}`);
      },
    );
  }
}
