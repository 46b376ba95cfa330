// The filesystem backend with real processes on one state directory (spec 05 §8, §13 A4, §14):
// three contenders sample is_leader on every 100 ms wall-clock tick; at no tick do two report
// leading. Graceful stop, SIGKILL, SIGSTOP beyond the ttl, clock skew with a hung store, and a
// store file that is unreadable (rounds fail closed): real processes and real signals. A locked
// store and the cases every backend shares are the conformance suite's
// (lease-conformance-*.test.ts). ttl 3: renew 1 s, round 1 s;
// topology shared (rollback journal), as on the shared mount the backend is made for.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureArgs } from '../helpers/fixture-bundle.ts';

const require = createRequire(import.meta.url);
const Better = require('better-sqlite3') as new (
  file: string,
  opts?: { timeout?: number; readonly?: boolean },
) => {
  exec(sql: string): void;
  prepare(sql: string): { get(...p: unknown[]): unknown };
  close(): void;
};

interface LeaseRow {
  holder: string;
  fence: number;
  expires_at: number;
}

/** The lease row as `sqlite3` shows it (the store's own table, read by a separate connection). */
function leaseRow(dir: string): LeaseRow {
  const db = new Better(join(dir, 'cronstable.db'), { readonly: true, timeout: 2000 });
  try {
    return db
      .prepare(
        "SELECT holder, fence, expires_at FROM leases WHERE ns = 'default' AND name = 'cluster/leader'",
      )
      .get() as LeaseRow;
  } finally {
    db.close();
  }
}

const CONTENDER = join(import.meta.dirname, 'fixtures', 'fs-contender.ts');
const TTL = 3;
const RENEW_MS = 1000;
const ROUND_MS = 1000;
/** Process scheduling on a shared 2-core machine: added to every spec bound we check. */
const SLACK_MS = 700;

interface Sample {
  type: 'sample';
  tick: number;
  wall: number;
  mono: number;
  leader: boolean;
  quorate: boolean;
  holder: string | null;
  fence: number | null;
  calls: number;
}

class Contender {
  readonly samples: Sample[] = [];
  readonly logs: { level: string; message: string; wall: number }[] = [];
  stoppedAt: number | null = null;
  private buffer = '';
  readonly exited: Promise<number | null>;
  readonly ready: Promise<void>;

  constructor(
    readonly name: string,
    readonly proc: ChildProcess,
  ) {
    let onReady: () => void = () => undefined;
    this.ready = new Promise((r) => {
      onReady = r;
    });
    this.exited = new Promise((r) => proc.once('exit', (code) => r(code)));
    proc.stdout!.setEncoding('utf8');
    proc.stdout!.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl = this.buffer.indexOf('\n');
      while (nl >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        nl = this.buffer.indexOf('\n');
        const m = JSON.parse(line) as { type: string } & Record<string, unknown>;
        if (m.type === 'sample') this.samples.push(m as unknown as Sample);
        else if (m.type === 'log') this.logs.push(m as never);
        else if (m.type === 'ready') onReady();
        else if (m.type === 'stopped') this.stoppedAt = m.wall as number;
      }
    });
    proc.stderr!.on('data', (d: Buffer) => process.stderr.write(`[${name}] ${d}`));
  }

  latest(): Sample | undefined {
    return this.samples.at(-1);
  }

  signal(sig: NodeJS.Signals): void {
    this.proc.kill(sig);
  }
}

const procs: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const p of procs.splice(0)) {
    if (p.exitCode === null && p.signalCode === null) {
      p.kill('SIGCONT');
      p.kill('SIGKILL');
      await new Promise((r) => p.once('exit', r));
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function stateDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'cronstable-fs-cluster-'));
  dirs.push(d);
  return d;
}

function start(dir: string, name: string, skewMs = 0, ttl = TTL): Contender {
  const proc = spawn(process.execPath, [...fixtureArgs(CONTENDER), dir, name, String(ttl), 'shared'], {
    env: { ...process.env, CRONSTABLE_TEST_CLOCK_SKEW_MS: String(skewMs) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(proc);
  return new Contender(name, proc);
}

async function fleet(dir: string, names: string[], skews: number[] = [], ttl = TTL): Promise<Contender[]> {
  const nodes = names.map((n, i) => start(dir, n, skews[i] ?? 0, ttl));
  await Promise.all(nodes.map((n) => n.ready));
  return nodes;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, pred: () => boolean, ms: number): Promise<void> {
  const t = Date.now();
  while (!pred()) {
    if (Date.now() - t > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(25);
  }
}

function leaderNow(nodes: Contender[]): Contender | undefined {
  const leading = nodes.filter((n) => n.latest()?.leader);
  return leading.length === 1 ? leading[0] : undefined;
}

/** Ticks (100 ms wall-clock slots) at which more than one contender reported is_leader. */
function overlaps(nodes: Contender[]): { tick: number; who: string[] }[] {
  const byTick = new Map<number, Set<string>>();
  for (const n of nodes)
    for (const s of n.samples)
      if (s.leader) {
        const set = byTick.get(s.tick) ?? new Set<string>();
        set.add(n.name);
        byTick.set(s.tick, set);
      }
  return [...byTick].filter(([, who]) => who.size > 1).map(([tick, who]) => ({ tick, who: [...who].sort() }));
}

/**
 * Ticks in [fromWall, toWall) sampled by every node in `nodes`, with how many nodes led in each.
 * Nodes are counted once per tick: a late timer can put two samples of one node in one tick, and
 * counting samples then read one leader as two, or a tick the leader missed as leaderless.
 */
function leaderCounts(nodes: Contender[], fromWall: number, toWall: number): number[] {
  const ticks = new Map<number, { seen: Set<string>; leaders: Set<string> }>();
  for (const n of nodes)
    for (const s of n.samples) {
      if (s.wall < fromWall || s.wall >= toWall) continue;
      const t = ticks.get(s.tick) ?? { seen: new Set<string>(), leaders: new Set<string>() };
      t.seen.add(n.name);
      if (s.leader) t.leaders.add(n.name);
      ticks.set(s.tick, t);
    }
  return [...ticks.values()].filter((t) => t.seen.size === nodes.length).map((t) => t.leaders.size);
}

/** The first sample of `n` at or after `wall` reporting leadership, or undefined. */
function firstLeading(n: Contender, afterWall: number): Sample | undefined {
  return n.samples.find((s) => s.wall >= afterWall && s.leader);
}

function fenceOf(nodes: Contender[]): number | null {
  return leaderNow(nodes)?.latest()?.fence ?? null;
}

describe('filesystem backend: three processes on one state directory', () => {
  it('one leader at every tick; a graceful stop hands over within renew + 1 round with fence + 1', async () => {
    const dir = stateDir();
    const nodes = await fleet(dir, ['node-a', 'node-b', 'node-c']);
    await until('a leader', () => leaderNow(nodes) !== undefined, 5000);
    const steadyFrom = Date.now();
    await sleep(3000);
    const counts = leaderCounts(nodes, steadyFrom, Date.now());
    expect(counts.length).toBeGreaterThan(20);
    expect(counts.filter((c) => c > 1)).toEqual([]);
    // Exactly one, except when the holder failed closed: a renew that outlived its 500 ms bound
    // (an overloaded disk) lets its deadline lapse, and it says so in a WARNING.
    const gaps = counts.filter((c) => c === 0).length;
    const failedRounds = nodes.flatMap((n) => n.logs).filter((l) => /election round failed/.test(l.message));
    if (gaps > 0) expect(failedRounds.length, `${gaps} ticks without a leader`).toBeGreaterThan(0);
    const holder = leaderNow(nodes)!;
    const fence = fenceOf(nodes)!;
    for (const n of nodes) {
      expect(n.latest()).toMatchObject({ quorate: true, holder: holder.name, fence });
    }

    holder.signal('SIGTERM');
    expect(await holder.exited).toBe(0);
    const released = holder.stoppedAt!;
    expect(holder.logs.map((l) => l.message)).toContain('cluster: released cluster/leader');
    // Released (expiry 0, fence kept) unless a survivor already took it over with fence + 1.
    const row = leaseRow(dir);
    if (row.expires_at === 0) expect(row.fence).toBe(fence);
    else
      expect(row).toMatchObject({ fence: fence + 1, holder: expect.not.stringMatching(`^${holder.name}#`) });
    const survivors = nodes.filter((n) => n !== holder);
    await until('a survivor to lead', () => leaderNow(survivors) !== undefined, RENEW_MS + ROUND_MS + 3000);
    const next = leaderNow(survivors)!;
    const took = firstLeading(next, released)!.wall - released;
    console.log(`filesystem graceful takeover: ${took} ms (bound ${RENEW_MS + ROUND_MS} ms)`);
    expect(took, 'graceful takeover ms').toBeLessThanOrEqual(RENEW_MS + ROUND_MS + SLACK_MS);
    // Every survivor names the new holder by its next round.
    await until(
      'all survivors to see the new holder',
      () => survivors.every((n) => n.latest()?.holder === next.name),
      RENEW_MS + SLACK_MS,
    );
    expect(fenceOf(survivors)).toBe(fence + 1);
    for (const n of survivors) expect(n.latest()).toMatchObject({ holder: next.name, fence: fence + 1 });
    expect(leaseRow(dir)).toMatchObject({ fence: fence + 1 });
    expect(overlaps(nodes)).toEqual([]);
  }, 40_000);

  it('SIGKILL of the holder: a survivor takes over within ttl + 1 + renew, fence + 1', async () => {
    const dir = stateDir();
    const nodes = await fleet(dir, ['node-a', 'node-b', 'node-c']);
    await until('a leader', () => leaderNow(nodes) !== undefined, 5000);
    await sleep(1500);
    const holder = leaderNow(nodes)!;
    const fence = fenceOf(nodes)!;
    holder.signal('SIGKILL');
    await holder.exited;
    // Its last renew, from the row it left behind (expiry = renew instant + ttl).
    const row = leaseRow(dir);
    expect(row).toMatchObject({
      holder: expect.stringMatching(new RegExp(`^${holder.name}#[0-9a-f]{12}$`)),
      fence,
    });
    const lastRenew = row.expires_at * 1000 - TTL * 1000;
    const survivors = nodes.filter((n) => n !== holder);
    const bound = (TTL + 1) * 1000 + RENEW_MS;
    await until('a survivor to lead', () => leaderNow(survivors) !== undefined, bound + 3000);
    const next = leaderNow(survivors)!;
    const takenAt = firstLeading(next, lastRenew)!.wall;
    console.log(
      `filesystem SIGKILL takeover: ${takenAt - lastRenew} ms after the last renew (bound ${bound} ms)`,
    );
    expect(takenAt - lastRenew).toBeLessThanOrEqual(bound + SLACK_MS);
    // Challenger margin: not before the written expiry is 1 s in the past.
    expect(takenAt).toBeGreaterThanOrEqual(row.expires_at * 1000 + 1000);
    await sleep(300);
    expect(fenceOf(survivors)).toBe(fence + 1);
    expect(leaseRow(dir)).toMatchObject({ fence: fence + 1 });
    expect(overlaps(nodes)).toEqual([]);
  }, 40_000);

  it('SIGSTOP beyond the ttl: after SIGCONT the old holder reports not leading before any I/O, never overlapping', async () => {
    const dir = stateDir();
    const nodes = await fleet(dir, ['node-a', 'node-b', 'node-c']);
    await until('a leader', () => leaderNow(nodes) !== undefined, 5000);
    await sleep(1500);
    const holder = leaderNow(nodes)!;
    const fence = fenceOf(nodes)!;
    const before = holder.latest()!;
    expect(before.leader).toBe(true);
    holder.signal('SIGSTOP');
    const stoppedAt = Date.now();
    const survivors = nodes.filter((n) => n !== holder);
    await until(
      'a survivor to lead',
      () => leaderNow(survivors) !== undefined,
      (TTL + 1) * 1000 + RENEW_MS + 3000,
    );
    await sleep(Math.max(0, stoppedAt + (TTL + 3) * 1000 - Date.now()));
    const seenBefore = holder.samples.length;
    holder.signal('SIGCONT');
    await until('the woken holder to sample', () => holder.samples.length > seenBefore + 5, 5000);
    const woke = holder.samples.slice(seenBefore);
    const first = woke[0]!;
    expect(first.mono - before.mono).toBeGreaterThan(TTL * 1000);
    // Its first word after the pause: not leading, and if no round ran yet, no store call either.
    expect(first.leader).toBe(false);
    expect(woke.every((s) => !s.leader)).toBe(true);
    console.log(
      `filesystem SIGSTOP: first sample after wake: leader=${first.leader}, store calls since the pause=${first.calls - before.calls}`,
    );
    await sleep(1500);
    const next = leaderNow(survivors)!;
    expect(holder.latest()).toMatchObject({
      leader: false,
      quorate: true,
      holder: next.name,
      fence: fence + 1,
    });
    expect(overlaps(nodes)).toEqual([]);
  }, 40_000);

  it('clock skew under 2 s never gives two leaders, even when the holder’s store hangs', async () => {
    const dir = stateDir();
    // The holder runs 950 ms slow, a challenger 950 ms fast: 1.9 s apart.
    const [a] = await fleet(dir, ['node-a'], [-950]);
    await until('node-a to lead', () => a!.latest()?.leader === true, 5000);
    const others = await fleet(dir, ['node-b', 'node-c'], [950, 0]);
    const nodes = [a!, ...others];
    for (let i = 0; i < 2; i++) {
      const holder = leaderNow(nodes)!;
      expect(holder).toBeDefined();
      // Its lease lane hangs 6 s: renewals time out while the process keeps sampling.
      holder.signal('SIGUSR2');
      const t = Date.now();
      await until('another node to lead', () => nodes.some((n) => n !== holder && n.latest()?.leader), 8000);
      expect(Date.now() - t).toBeGreaterThan(1000);
      await sleep(6000);
    }
    expect(overlaps(nodes)).toEqual([]);
    const stallLogs = nodes.flatMap((n) => n.logs).filter((l) => /round failed/.test(l.message));
    expect(stallLogs.length).toBeGreaterThan(0);
  }, 60_000);

  it('more than 2 s of skew can give two leaders: the tick check sees it', async () => {
    // ttl 6: renew every 2 s; the holder leads until its last renew + 5 s. Holder 2.25 s slow,
    // challenger 2.25 s fast (4.5 s apart): the challenger sees the lease expired 2.5 s after a
    // renew, never reached while renewals flow. Once the holder's store hangs, the challenger's
    // next round (2.5-4.5 s after the last renew) takes over while the holder still leads, by
    // its own clock rightly, until 5 s: at least half a second of two leaders.
    const dir = stateDir();
    const ttl = 6;
    const [a] = await fleet(dir, ['node-a'], [-2250], ttl);
    await until('node-a to lead', () => a!.latest()?.leader === true, 8000);
    const [b] = await fleet(dir, ['node-b'], [2250], ttl);
    await sleep(2500);
    expect(overlaps([a!, b!])).toEqual([]); // renewals flowing: still one leader
    const nodes = [a!, b!];
    a!.signal('SIGUSR2');
    await sleep((ttl + 1) * 1000);
    expect(b!.latest()?.leader).toBe(true);
    console.log(`filesystem 4.5 s skew + hung holder: ${overlaps(nodes).length} ticks with two leaders`);
    expect(overlaps(nodes).length).toBeGreaterThanOrEqual(3);
  }, 30_000);
});

describe('filesystem backend: the store fails, rounds fail closed', () => {
  it('an unreadable store file (header overwritten in place): no leader, no quorum; back once restored', async () => {
    const dir = stateDir();
    const nodes = await fleet(dir, ['node-a', 'node-b']);
    await until('a leader', () => leaderNow(nodes) !== undefined, 5000);
    const file = join(dir, 'cronstable.db');
    const fd = openSync(file, 'r+');
    const header = Buffer.alloc(100);
    try {
      readSync(fd, header, 0, 100, 0);
      writeSync(fd, Buffer.alloc(100, 0x5a), 0, 100, 0);
      await sleep(TTL * 1000 + ROUND_MS + SLACK_MS);
      for (const n of nodes) expect(n.latest()).toMatchObject({ leader: false, quorate: false });
      const failures = nodes.flatMap((n) => n.logs).filter((l) => /round failed/.test(l.message));
      expect(failures.length).toBeGreaterThan(0);
    } finally {
      writeSync(fd, header, 0, 100, 0);
      closeSync(fd);
    }
    await until('a leader again', () => leaderNow(nodes) !== undefined, 8000);
    expect(overlaps(nodes)).toEqual([]);
  }, 40_000);
});
