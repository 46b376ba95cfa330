// Spec 05 §13 A4 on three daemons, `backend: filesystem` over the shared state directory (ttl 3,
// an observability mesh beside it): one holder, fence equal everywhere, the Leader jobs running
// there; a kill -9 of the holder hands the lease over with fence + 1 and no slot run twice; a
// SIGSTOPped holder runs no Leader slot once it wakes without its lease. The election itself
// (acquire, renew, lose, fence, release, fail over, skew, a locked store) is the conformance
// suite's (lease-conformance-filesystem.test.ts); a daemon's graceful stop handing the lease
// over with fence + 1 is test/tour/filesystem.test.ts's.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUNDLE, type Fleet } from '../../scripts/fleet/fleet.ts';
import {
  expectExactlyOnce,
  jobsYaml,
  ledgerWindow,
  runsPerNode,
  secondFromNow,
  sleep,
  useFleet,
  waitUntil,
} from './harness.ts';

const LEADER = ['lead-1', 'lead-2'];
const TTL = 3;

interface Holder {
  leader: string;
  fence: number;
}

/** The holder every running node agrees on (all quorate, one is_leader), or null. */
async function agreedHolder(fleet: Fleet): Promise<Holder | null> {
  const views = Object.entries(await fleet.views());
  const leaders = views.filter(([, v]) => v.is_leader).map(([id]) => id);
  const names = new Set(views.map(([, v]) => v.leader));
  const fences = new Set(views.map(([, v]) => (v.lease as { fence?: number } | undefined)?.fence));
  if (leaders.length !== 1 || names.size !== 1 || fences.size !== 1) return null;
  if (!views.every(([, v]) => v.quorate)) return null;
  const leader = leaders[0]!;
  if (views.find(([id]) => id === leader)![1].leader !== leader) return null;
  return { leader, fence: [...fences][0] as number };
}

/** The POSIX locks `pid` holds or waits for, from /proc/locks (Linux; none where unreadable). */
function locksHeld(pid: number): string[] {
  try {
    return readFileSync('/proc/locks', 'utf8')
      .split('\n')
      .filter((l) => l.split(/\s+/).includes(String(pid)));
  } catch {
    return [];
  }
}

/** Whether `pid` is stopped by a signal (state T in /proc/PID/stat). */
function stoppedState(pid: number): boolean {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
}

function stoppedLocks(pid: number): string {
  const locks = locksHeld(pid);
  return `the stopped holder (pid ${pid}) holds ${locks.length} lock(s):\n${locks.join('\n')}`;
}

/** The last lease and store lines of every node but `except`, from their logs. */
function leaseLines(fleet: Fleet, except: string): string {
  return fleet.nodes
    .filter((n) => n.id !== except)
    .map((n) => {
      const lines = readFileSync(n.logFile, 'utf8')
        .split('\n')
        .filter((l) => /lease|store|locked|busy|leader/i.test(l))
        .slice(-12);
      return `${n.id}:\n${lines.join('\n')}`;
    })
    .join('\n');
}

describe.sequential('filesystem backend, 3 nodes', () => {
  const t = useFleet({
    nodes: 3,
    backend: 'filesystem',
    jobsYaml: jobsYaml(LEADER.map((name) => ({ name, policy: 'Leader' as const }))),
  });
  it('A4: one holder, every node quorate and naming it, fence equal; Leader jobs run there', async () => {
    const holder = await waitUntil(() => agreedHolder(t.fleet), {
      timeoutMs: 15_000,
      label: 'one agreed holder',
    });
    const v = await t.node(holder.leader).cluster();
    expect(v).toMatchObject({ backend: 'filesystem', cluster_size: 1, quorum: 1, fleet: true });
    const from = secondFromNow(300);
    const report = await expectExactlyOnce(t.fleet, LEADER, from, from + 1000);
    for (const job of LEADER) expect(report.runners[job]).toEqual([holder.leader]);
  });

  it('A4: kill -9 of the holder: takeover within ttl + 1 + renew, fence + 1, no slot twice', async () => {
    const old = (await waitUntil(() => agreedHolder(t.fleet), { timeoutMs: 8000, label: 'a holder' }))!;
    const start = secondFromNow(300);
    await sleep(start - Date.now());
    const killedAt = Date.now();
    await t.node(old.leader).kill();
    const next = await waitUntil(
      async () => {
        const h = await agreedHolder(t.fleet);
        return h && h.leader !== old.leader ? h : null;
      },
      { timeoutMs: (TTL + 1 + 1) * 1000 + 4000, label: 'a new holder after kill -9' },
    );
    expect(next.fence).toBe(old.fence + 1);
    expect(Date.now() - killedAt).toBeLessThan((TTL + 1 + 1) * 1000 + 4000);
    // The new holder fails a slot closed when its own renew ran past the lease's deadline (its loop
    // late on a loaded machine: "lease deadline passed before it was renewed"), as it must; such a
    // window is measured again, up to three times. Any other miss, or a duplicate, fails.
    const FAILED_CLOSED = 'lease deadline passed before it was renewed';
    let settled = secondFromNow(300);
    let report = await ledgerWindow(t.fleet, LEADER, settled, settled + 1000, 10_000);
    for (let again = 0; again < 2 && report.missing.length > 0; again++) {
      expect(report.duplicates).toEqual([]);
      expect(report.missing.filter((m) => !m.includes(FAILED_CLOSED))).toEqual([]);
      settled = secondFromNow(300);
      report = await ledgerWindow(t.fleet, LEADER, settled, settled + 1000, 10_000);
    }
    expect(report.expected).toBeGreaterThan(0);
    expect(report.duplicates).toEqual([]);
    expect(report.missing, `slots that ran nowhere: ${JSON.stringify(report.missing)}`).toEqual([]);
    for (const job of LEADER) expect(report.runners[job]).toEqual([next.leader]);
    expect((await ledgerWindow(t.fleet, LEADER, start, settled + 1000)).duplicates).toEqual([]);
    await t.node(old.leader).start();
  });

  it('SIGSTOP of the holder: after SIGCONT it runs no Leader slot without its lease', async () => {
    const old = (await waitUntil(() => agreedHolder(t.fleet), { timeoutMs: 8000, label: 'a holder' }))!;
    const pid = t.node(old.leader).pid!;
    // A stop that lands while the holder commits to the shared store leaves the stopped process
    // holding SQLite's file lock, and no node can write the lease until it wakes (a documented
    // limit: README, "When things go wrong"). One run in a dozen lands there on a busy machine;
    // this case wants a stop between commits, so such a stop is undone and taken again.
    let pausedAt = 0;
    for (let attempt = 1; ; attempt++) {
      pausedAt = Date.now();
      t.node(old.leader).pause();
      await waitUntil(() => stoppedState(pid), { timeoutMs: 2000, label: 'the holder stopped' });
      if (locksHeld(pid).length === 0 || attempt === 5) break;
      t.node(old.leader).resume();
      await sleep(200 + Math.random() * 300);
    }
    try {
      await waitUntil(
        async () => {
          const h = await agreedHolder(t.fleet);
          return h && h.leader !== old.leader ? h : null;
        },
        // Takeover is due within ttl + 1 + renew; the rest is room for a loaded 2-core machine.
        { timeoutMs: (TTL + 2) * 1000 + 8000, label: 'a new holder while the old one sleeps' },
      ).catch((e: Error) => {
        // Say whether the stopped process holds a lock on the shared store (no other node can
        // then write the lease until it wakes), and what the others' lease rounds said.
        throw new Error(`${e.message}\n${stoppedLocks(pid)}\n${leaseLines(t.fleet, old.leader)}`);
      });
      await sleep(1000);
    } finally {
      // Never leave it stopped: a retry (or the next test) needs all three nodes.
      t.node(old.leader).resume();
    }
    // Its timers fire late, its catch-up replays the slots it slept through: its own lease
    // deadline (monotonic, ttl - 1 after its last renew) has passed, so the gate says no.
    const to = secondFromNow(3000);
    const report = await ledgerWindow(t.fleet, LEADER, pausedAt - 1000, to);
    expect(report.duplicates).toEqual([]);
    for (const job of LEADER) expect(runsPerNode(t.fleet, job, pausedAt + 1000, to)[old.leader] ?? 0).toBe(0);
    await waitUntil(() => agreedHolder(t.fleet), { timeoutMs: 8000, label: 'one holder again' });
  });

  it('A4: distribution: spread with the filesystem backend is a config error', () => {
    const n = t.node('node-a');
    n.spec.clusterOverrides = { distribution: 'spread' };
    n.writeConfig();
    try {
      const r = spawnSync(process.execPath, [BUNDLE, '-c', n.dir, '-v'], { encoding: 'utf8' });
      expect(r.status).toBe(1);
      expect(r.stdout + r.stderr).toMatch(/distribution: spread is only supported by the gossip backend/);
    } finally {
      n.spec.clusterOverrides = {};
      n.writeConfig();
    }
  });
});
