// The store-backed fire claims of a fleet (DESIGN.md §4 step 3): under election, every slot of
// a leader-gated job is claimed in the shared store before it runs, so a slot runs on at most
// one node even while two nodes both believe they lead. Matches the scheduler's `FireClaims`
// structurally (the cluster layer does not import the scheduler).
import type { JobConfig } from '../config/types.ts';
import type { Store } from '../store/types.ts';
import { errorText } from '../util/errors.ts';

/** Same shape as `ClaimAnswer` in src/scheduler/control.ts. */
export type ClaimAnswer = boolean | { by: string } | { skip: string };

export interface StoreFireClaimsOptions {
  /** The open store, or null (no `state:` section, or it could not open). */
  store(): Store | null;
  /** Election in force (claims only back up an election). */
  electionOn(): boolean;
  /** This node's name, written as the claim's `node`. */
  nodeName(): string;
  /**
   * What a `Leader` slot does when the store cannot answer: `fail-closed` skips it (at most
   * once), `degrade` runs it on the election's word alone. `PreferLeader` always runs.
   */
  onStoreUnavailable: 'degrade' | 'fail-closed';
  warn(message: string): void;
}

export class StoreFireClaims {
  constructor(private readonly o: StoreFireClaimsOptions) {}

  claim(job: JobConfig, scheduledAt: number): ClaimAnswer | Promise<ClaimAnswer> {
    if (job.clusterPolicy === 'EveryNode' || !this.o.electionOn()) return true;
    const store = this.o.store();
    if (!store) return true;
    return store.fireClaim(job.name, scheduledAt, this.o.nodeName()).then(
      (r): ClaimAnswer => (r.won ? true : { by: r.node }),
      (e: unknown): ClaimAnswer => {
        const why = errorText(e);
        if (job.clusterPolicy === 'PreferLeader' || this.o.onStoreUnavailable === 'degrade') {
          this.o.warn(
            `Job ${job.name}: its fire claim cannot be made (state store unavailable: ${why}); running on the election's word alone`,
          );
          return true;
        }
        return { skip: `its fire claim cannot be made (state store unavailable: ${why})` };
      },
    );
  }
}
