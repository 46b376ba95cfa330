// The lease-backend conformance suite: the same cases, run against every backend through its
// driver (spec 05 §7 shared semantics; §5.7 for gossip): acquire, renew, lose, fence, release,
// fail over, clock skew, store unreachable. Bounds come from the driver's timing; a watcher
// samples every node's `/cluster` view throughout and measures any stretch of two leaders.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceDriver, ConformanceFleet, Contender } from './driver.ts';

const SAMPLE_MS = 25;
/** Scheduling on a shared 2-core machine, added to every bound. */
const SLACK_MS = 1500;
/** A case starts three contenders, runs for a few lease lives, and stops them. */
const CASE_TIMEOUT_MS = 90_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const leaders = (nodes: Contender[]) => nodes.filter((n) => !n.dead && n.backend.report().is_leader);

async function until(what: string, ms: number, pred: () => boolean): Promise<number> {
  const t0 = performance.now();
  while (!pred()) {
    if (performance.now() - t0 > ms) throw new Error(`timed out after ${Math.round(ms)} ms: ${what}`);
    await sleep(SAMPLE_MS);
  }
  return performance.now() - t0;
}

/**
 * Samples every live node; records the longest stretch in which two or more claimed to lead,
 * counted from the last sample that saw one leader at most, so a single sample of two is > 0.
 */
class Watch {
  private timer: NodeJS.Timeout;
  private last = performance.now();
  private since: number | null = null;
  longestOverlapMs = 0;

  constructor(private readonly nodes: Contender[]) {
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
  }

  private sample(): void {
    const now = performance.now();
    if (leaders(this.nodes).length > 1) {
      this.since ??= this.last;
      this.longestOverlapMs = Math.max(this.longestOverlapMs, now - this.since);
    } else this.since = null;
    this.last = now;
  }

  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.longestOverlapMs;
  }
}

/** Registers the suite for one backend. */
export function describeConformance(driver: ConformanceDriver): void {
  const t = driver.timing;
  const reason = driver.unavailable();
  // Nothing is skipped silently: a missing store is a named skip here and a failure under CI.
  if (reason && process.env.CI) throw new Error(`${driver.kind} conformance cannot run under CI: ${reason}`);
  const suite = reason ? describe.skip : describe;
  const title = reason
    ? `${driver.kind} backend conformance (skipped: ${reason})`
    : `${driver.kind} backend conformance`;

  // The cases run side by side (each on its own fleet and store): they mostly wait on the
  // backend's timers, so a file takes about as long as its longest case, not their sum.
  suite.concurrent(title, () => {
    beforeAll(async () => {
      await driver.setup?.();
    });
    afterAll(async () => {
      await driver.teardown?.();
    });

    // Fleets start one at a time (a start opens stores, spawns lane workers, handshakes TLS: the
    // busy part of a case); the cases then overlap in what they mostly do, waiting on timers.
    let starts: Promise<unknown> = Promise.resolve();
    function startFleet(skews?: number[]): Promise<ConformanceFleet> {
      const next = starts.then(() => driver.fleet(['node-a', 'node-b', 'node-c'], skews));
      starts = next.catch(() => undefined);
      return next;
    }

    /** One leader among `nodes`, and every one of them quorate and naming it: a settled view. */
    async function oneLeader(nodes: Contender[], ms: number, what = 'one agreed leader'): Promise<Contender> {
      const agreed = () => {
        const now = leaders(nodes);
        if (now.length !== 1) return false;
        return nodes.every((n) => {
          if (n.dead) return true;
          const r = n.backend.report();
          return r.quorate && r.leader === now[0]!.name;
        });
      };
      await until(what, ms, agreed);
      return leaders(nodes)[0]!;
    }

    /** Another node than `old` takes over within `ms`, and the rest agree on it. */
    function survivorLeads(nodes: Contender[], old: Contender, ms: number): Promise<Contender> {
      const rest = nodes.filter((n) => n !== old);
      return oneLeader(rest, ms, 'a survivor leads');
    }

    /**
     * One case on three fresh contenders, from the moment they agree on a leader. Throughout, no
     * two nodes lead for longer than the backend allows (a lease: never).
     */
    function leaderCase(
      title: string,
      body: (nodes: Contender[], leader: Contender, fleet: ConformanceFleet) => Promise<void>,
      skews?: number[],
    ): void {
      it(
        title,
        async ({ onTestFinished }) => {
          const fleet = await startFleet(skews);
          const watch = new Watch(fleet.nodes);
          onTestFinished(async () => {
            watch.stop();
            await fleet.close();
          }, CASE_TIMEOUT_MS);
          await body(fleet.nodes, await oneLeader(fleet.nodes, t.acquireMs + SLACK_MS), fleet);
          expect(watch.stop()).toBeLessThanOrEqual(t.overlapMs);
        },
        CASE_TIMEOUT_MS,
      );
    }

    leaderCase(
      'acquire: one of three contenders leads, every node names it, and the gate follows',
      async (nodes, leader, fleet) => {
        expect(leader.backend.report()).toMatchObject({ backend: driver.kind, is_leader: true });
        // The store-specific lease block of `/cluster` names the holder on every node (none on
        // gossip, which holds no lease); the holder's own says when its lease runs out.
        for (const n of nodes) {
          const want = fleet.leaseBlock(n, leader);
          if (want === null) expect(n.backend.report().lease ?? null).toBeNull();
          else expect(n.backend.report().lease, n.name).toMatchObject(want);
        }
        if (fleet.leaseBlock(leader, leader) !== null)
          expect(Date.parse(String(leader.backend.report().lease?.expiry))).toBeGreaterThan(Date.now());
        expect(leader.backend.decide('job', 'Leader')).toEqual({ run: true });
        expect(leader.backend.decide('job', 'PreferLeader')).toEqual({ run: true });
        for (const f of nodes.filter((n) => n !== leader)) {
          expect(f.backend.decide('job', 'Leader')).toMatchObject({ run: false, transient: false });
          expect(f.backend.decide('job', 'PreferLeader').run).toBe(false);
          expect(f.backend.ownerOf('job', 'Leader') ?? null).toBeNull();
        }
      },
    );

    leaderCase(
      'renew: the holder keeps leading across several lease lives, and nobody else ever leads',
      async (nodes, leader) => {
        const end = performance.now() + 2.5 * t.ttlMs;
        let led = 0;
        let samples = 0;
        while (performance.now() < end) {
          const now = leaders(nodes);
          expect(now.filter((n) => n !== leader).map((n) => n.name)).toEqual([]);
          samples++;
          if (now.includes(leader)) led++;
          await sleep(SAMPLE_MS * 2);
        }
        // A renew that outlives its bound on an overloaded machine may leave a gap (fail closed),
        // never another holder.
        expect(led / samples).toBeGreaterThan(0.9);
        expect(leader.backend.report().is_leader).toBe(true);
      },
    );

    leaderCase(
      'lose: a holder whose lease is taken behind its back stops leading, and one node leads again',
      async (nodes, leader, fleet) => {
        await fleet.steal(leader);
        await until('the holder stops leading', t.ttlMs + SLACK_MS, () => !leader.backend.report().is_leader);
        expect(leader.backend.decide('job', 'Leader').run).toBe(false);
        // Whatever took it (another writer, a partition) lets go again: the fleet settles on one.
        await fleet.heal();
        await oneLeader(nodes, t.failoverMs + t.ttlMs + SLACK_MS, 'a leader again');
      },
    );

    leaderCase(
      'fence: a stalled holder is replaced, its stale write is refused, and it wakes demoted',
      async (nodes, old, fleet) => {
        const fence = await fleet.fenceOf(old);
        await fleet.freeze(old);
        const next = await survivorLeads(nodes, old, t.failoverMs + SLACK_MS);
        expect(await fleet.staleWrite(old, fence)).toBe('refused');
        await fleet.thaw(old);
        // A lease holder reads its own deadline on its monotonic clock: its first word after the
        // stall, before any round's I/O has answered, is "not leading".
        if (t.overlapMs === 0) expect(old.backend.report().is_leader).toBe(false);
        const end = performance.now() + t.ttlMs;
        while (performance.now() < end) {
          expect(next.backend.report().is_leader || !old.backend.report().is_leader).toBe(true);
          await sleep(SAMPLE_MS);
        }
        await until('the stale holder names the new one', t.ttlMs + SLACK_MS, () => {
          const r = old.backend.report();
          return !r.is_leader && (r.leader === next.name || !r.quorate);
        });
        expect(old.backend.decide('job', 'Leader').run).toBe(false);
      },
    );

    leaderCase(
      'release: a graceful stop hands over on a survivor’s next round, ran-set and all',
      async (nodes, old) => {
        await old.backend.recordRebootRan('boot-once');
        await old.backend.stop();
        old.dead = true;
        // A lease holder lets go of its lease, says so, and stops leading at once.
        if (driver.releaseLog) {
          expect(old.backend.report().is_leader).toBe(false);
          expect(old.host.lines.filter((l) => driver.releaseLog!.test(l))).toHaveLength(1);
        }
        // Within a survivor's next round or two, well inside a lease life: the survivors do not
        // wait out the released lease.
        const next = await survivorLeads(nodes, old, t.releaseMs + SLACK_MS);
        // The @reboot ran-set outlives its writer: the new leader reads it before it answers.
        await until('the new leader read the ran-set', t.ttlMs + SLACK_MS, () => {
          return next.backend.rebootRan('boot-once') !== 'unknown';
        });
        expect(next.backend.rebootRan('boot-once')).toBe(true);
        expect(next.backend.rebootRan('never-ran')).toBe(false);
      },
    );

    leaderCase(
      'fail over: a crashed holder (no release) is replaced within its bound',
      async (nodes, old, fleet) => {
        await fleet.crash(old);
        await survivorLeads(nodes, old, t.failoverMs + SLACK_MS);
      },
    );

    // The first holder runs 0.9 s slow, a challenger 0.9 s fast: 1.8 s apart.
    leaderCase(
      'clock skew under the 2 s budget: still one leader, and a failover never overlaps',
      async (nodes, first, fleet) => {
        await sleep(t.ttlMs);
        expect(leaders(nodes)).toEqual([first]);
        await fleet.freeze(first);
        await survivorLeads(nodes, first, t.failoverMs + SLACK_MS);
      },
      [-900, 900, 0],
    );

    leaderCase(
      'store unreachable: every node fails closed by its deadline, PreferLeader runs, then it recovers',
      async (nodes, _leader, fleet) => {
        await fleet.cut();
        await until('no leader', t.demoteMs + SLACK_MS, () => leaders(nodes).length === 0);
        await until('no quorum', t.quorumLossMs + SLACK_MS, () =>
          nodes.every((n) => !n.backend.report().quorate),
        );
        for (const n of nodes) {
          expect(n.backend.report().leader).toBeNull();
          expect(n.backend.decide('job', 'Leader')).toMatchObject({ run: false, transient: true });
          expect(n.backend.decide('job', 'PreferLeader')).toEqual({ run: true });
          expect(n.host.lines.some((l) => l.startsWith('WARNING') && driver.failureLog.test(l))).toBe(true);
        }
        await fleet.heal();
        await oneLeader(nodes, t.recoverMs + SLACK_MS, 'one quorate leader again');
        for (const n of nodes)
          expect(n.host.lines.some((l) => l.startsWith('INFO') && driver.recoveryLog.test(l))).toBe(true);
      },
    );
  });
}
