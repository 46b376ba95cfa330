// The cluster gate (spec 05 §3): decides whether this node runs a fire. A cluster backend
// plugs its policy in here; a single node runs every fire.
import type { JobConfig } from '../config/types.ts';

export type GateDecision =
  | { run: true }
  /** `noQuorum`: refused for want of quorum; the slot is recorded as `no-quorum`. */
  | { run: false; reason: string; noQuorum?: true }
  /** Not now, ask again at `until` (epoch ms): e.g. quorum is being re-established. */
  | { run: false; reason: string; deferUntil: number };

export interface ClusterGate {
  /**
   * A scheduled, @reboot or retry fire of `job` at `scheduledAt` (epoch ms). Synchronous for
   * scheduled fires; an @reboot under election may wait for the fleet to record its run. A
   * retry refused without `deferUntil` means its ownership moved: the retry ends.
   */
  decide(
    job: JobConfig,
    scheduledAt: number | null,
    kind: 'schedule' | 'retry' | 'reboot',
  ): GateDecision | Promise<GateDecision>;
}

export const RUN_HERE: ClusterGate = {
  decide: () => ({ run: true }),
};
