// In-flight records `inflight/<job>` (spec 03 §3.1) for @reboot jobs, and the rule they serve
// (spec 09 §9.5): a run of the previous daemon that still runs in this OS boot IS this boot's run.
// The boot marker alone cannot tell: a daemon SIGKILLed while its @reboot job runs, its markers lost
// or its job changed, would otherwise start a second copy beside the survivor.
//
// `open` is appended when the job goes from 0 to 1 live runs in this process, `closed` at 1 to 0,
// in order per job. At the @reboot gate the host's newest record is read once: an `open` from
// another process whose pid lives and started no later than 60 s after the record's `startedAt`
// is a survivor; a later start means the pid was recycled, and a dead pid means the run is over:
// both are closed as `reconciled-crash`.
import { randomBytes } from 'node:crypto';
import type { JobConfig } from '../../config/types.ts';
import { processStartMs } from '../../exec/proc-start.ts';
import type { Json } from '../../store/types.ts';
import { pidAlive } from '../../util/pid.ts';
import { inBackground, iso, type StoreSide } from './context.ts';

/** How much later than the record's `startedAt` the process may have started and still be it. */
const RECYCLE_SLACK_MS = 60_000;
const KEEP = 8;

interface OpenRecord {
  kind: 'open';
  host: string;
  proc: string;
  pid: number;
  startedAt: string;
}

/** A surviving run: its pid and the start time it had when first seen (null = unreadable). */
interface Survivor {
  pid: number;
  startMs: number | null;
}

export interface InFlightProbe {
  alive(pid: number): boolean;
  startMs(pid: number): number | null;
}

const LINUX: InFlightProbe = { alive: pidAlive, startMs: processStartMs };

function asOpen(data: unknown): OpenRecord | null {
  const d = data as Partial<OpenRecord> | null;
  if (d?.kind !== 'open' || typeof d.host !== 'string' || typeof d.proc !== 'string') return null;
  if (!Number.isInteger(d.pid) || (d.pid as number) <= 0 || typeof d.startedAt !== 'string') return null;
  return d as OpenRecord;
}

export class InFlight {
  /** This process's token: an `open` carrying it is ours, never a survivor. */
  readonly proc = randomBytes(8).toString('hex');
  /** Per job, the ids of its runs with a process in this daemon. */
  private readonly live = new Map<string, Set<string>>();
  private readonly writes = new Map<string, Promise<unknown>>();
  /** Per @reboot job: undefined = not looked yet; null = no survivor (or forgotten). */
  private readonly survivors = new Map<string, Survivor | null>();

  constructor(
    private readonly side: StoreSide,
    private readonly jobDigest: (job: JobConfig) => string,
    private readonly probe: InFlightProbe = LINUX,
  ) {}

  /** Appends in order per job, in the background (a write never blocks a launch). */
  private append(job: string, data: Json): void {
    const prev = this.writes.get(job) ?? Promise.resolve();
    const next = prev.then(() => this.side.store.append(`inflight/${job}`, data, { keep: KEEP }));
    this.writes.set(
      job,
      next.catch(() => {}),
    );
    inBackground(this.side, `the in-flight record of ${job}`, () => next);
  }

  runStarted(job: JobConfig, runId: string, pid: number | null, startedAt: number, manual: boolean): void {
    if (!job.reboot) return;
    // A manual start claims the boot: a survivor no longer stands in for it.
    if (manual) this.survivors.set(job.name, null);
    if (pid === null) return;
    const runs = this.live.get(job.name) ?? new Set<string>();
    this.live.set(job.name, runs.add(runId));
    if (runs.size === 1)
      this.append(job.name, {
        kind: 'open',
        host: this.side.host,
        proc: this.proc,
        pid,
        startedAt: iso(startedAt),
        jobDigest: this.jobDigest(job),
      });
  }

  runFinished(job: JobConfig, runId: string): void {
    const runs = this.live.get(job.name);
    if (!runs?.delete(runId) || runs.size > 0) return;
    this.live.delete(job.name);
    this.closed(job.name, 'finished');
  }

  private closed(job: string, reason: 'finished' | 'reconciled-crash'): void {
    this.append(job, {
      kind: 'closed',
      host: this.side.host,
      proc: this.proc,
      reason,
      at: iso(this.side.clock.now()),
    });
  }

  /** This host's newest record of the job: a survivor (remembered), or nothing. */
  private async look(job: JobConfig): Promise<Survivor | null> {
    const rows = await this.side.store.list(`inflight/${job.name}`, { newestFirst: true, limit: KEEP });
    const newest = rows.find((r) => (r.data as { host?: unknown } | null)?.host === this.side.host);
    const open = asOpen(newest?.data);
    if (!open || open.proc === this.proc) return null;
    if (!this.probe.alive(open.pid)) {
      this.closed(job.name, 'reconciled-crash');
      return null;
    }
    const startMs = this.probe.startMs(open.pid);
    const startedAt = Date.parse(open.startedAt);
    if (startMs !== null && Number.isFinite(startedAt) && startMs > startedAt + RECYCLE_SLACK_MS) {
      this.closed(job.name, 'reconciled-crash');
      return null;
    }
    this.side.log.warning(
      `Job ${job.name}: the previous daemon's run (pid ${open.pid}) still appears to be running; leaving its in-flight record open`,
    );
    return { pid: open.pid, startMs };
  }

  /**
   * Before the @reboot boot gate: the pid of a previous daemon's run that still runs (alive, same
   * start time), which stands in for this boot's run; null to go on to the boot marker.
   */
  async rebootSurvivor(job: JobConfig): Promise<number | null> {
    let survivor = this.survivors.get(job.name);
    if (survivor === undefined) {
      survivor = await this.look(job);
      this.survivors.set(job.name, survivor);
    }
    if (!survivor) return null;
    // An unreadable start time, then or now, reads as "could be the same process".
    const now = this.probe.alive(survivor.pid) ? this.probe.startMs(survivor.pid) : undefined;
    const same = now !== undefined && (now === null || survivor.startMs === null || now === survivor.startMs);
    if (!same) {
      this.survivors.set(job.name, null);
      return null;
    }
    return survivor.pid;
  }
}
