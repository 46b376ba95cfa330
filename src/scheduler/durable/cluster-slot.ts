// Cluster concurrency slots (spec 02 §10.2): `concurrencyScope: cluster` holds the TTL lease
// `slots/<job>` while a run goes, renewed every TTL/3. Under Replace a node asks the holder to yield (a
// `cancel` record aimed at its fence, which the holder's renew loop reads) and waits for the lease.
import type { JobConfig } from '../../config/types.ts';
import type { Lease } from '../../store/types.ts';
import type { TimerHandle } from '../../util/clock.ts';
import { errorText } from '../../util/errors.ts';
import type { SchedulerControl, SlotClaim } from '../control.ts';
import { type StoreSide, storeFailed } from './context.ts';

export class ClusterSlots {
  constructor(
    private readonly side: StoreSide,
    private readonly ttlSeconds: number,
    /** This process's lease holder name (`host#proc`). */
    private readonly holder: string,
    /** The scheduler, once started: a Replace from another node cancels the local run through it. */
    private readonly scheduler: () => SchedulerControl | null,
  ) {}

  /** The job's slot, held until `release`; or why the launch must be skipped. */
  async claim(job: JobConfig): Promise<SlotClaim> {
    const name = `slots/${job.name}`;
    const { store, log } = this.side;
    let lease: Lease | null;
    try {
      lease = await store.leaseAcquire(name, this.holder, this.ttlSeconds);
      if (!lease && job.concurrencyPolicy === 'Replace') lease = await this.takeOver(name);
    } catch (e) {
      if (this.side.onStoreUnavailable === 'fail-closed')
        return {
          skip: `its cluster concurrency slot cannot be claimed (state store unavailable: ${errorText(e)})`,
        };
      log.warning(`Job ${job.name}: state store unavailable; enforcing concurrency on this node only`);
      return {};
    }
    if (!lease) {
      const holder = (await store.leaseRead(name).catch(() => null))?.holder ?? 'another node';
      return {
        skip: `its cluster concurrency slot is held by ${holder.split('#')[0]} (concurrencyPolicy ${job.concurrencyPolicy})`,
      };
    }
    return this.hold(job, name, lease);
  }

  /** Renews the lease every TTL/3 (yielding to a Replace aimed at it) until released. */
  private hold(job: JobConfig, name: string, lease: Lease): SlotClaim {
    const { store, clock, log } = this.side;
    let current = lease;
    let timer: TimerHandle | null = null;
    const renew = () => {
      timer = clock.setTimer(
        async () => {
          try {
            const cancel = await store.newest(name);
            const data = cancel?.data as { kind?: string; fence?: number } | undefined;
            if (data?.kind === 'cancel' && data.fence === current.fence) {
              log.info(
                `Job ${job.name}: another node replaces it (cluster Replace); cancelling the local run`,
              );
              await this.scheduler()?.cancelJob(job.name, 'replaced');
            }
            const next = await store.leaseRenew(current, this.ttlSeconds);
            if (next) current = next;
            else
              log.warning(
                `Job ${job.name}: lost its cluster concurrency slot; it keeps running (at-least-once)`,
              );
          } catch (e) {
            storeFailed(this.side, `renewing the concurrency slot of ${job.name}`, e);
          }
          renew();
        },
        Math.max(1000, (this.ttlSeconds * 1000) / 3),
      );
    };
    renew();
    return {
      release: async () => {
        if (timer) clock.clearTimer(timer);
        await store
          .leaseRelease(current)
          .catch((e) => storeFailed(this.side, `releasing the slot of ${job.name}`, e));
      },
    };
  }

  /** Replace across the fleet: ask the holder to yield, then wait for the slot (bounded). */
  private async takeOver(name: string): Promise<Lease | null> {
    const { store, clock, host } = this.side;
    const ttl = this.ttlSeconds;
    const held = await store.leaseRead(name);
    if (!held) return store.leaseAcquire(name, this.holder, ttl);
    await store.append(
      name,
      { kind: 'cancel', fence: held.fence, by: host, at: clock.now() / 1000 },
      { keep: 8 },
    );
    const deadline = clock.now() + 2 * ttl * 1000;
    const step = Math.max(1000, (ttl * 1000) / 6);
    while (clock.now() < deadline) {
      await new Promise<void>((resolve) => clock.setTimer(resolve, step));
      const lease = await store.leaseAcquire(name, this.holder, ttl);
      if (lease) return lease;
    }
    return null;
  }
}
