// The filesystem backend with real processes on one state directory (spec 05 §8, §14): contender
// processes sample is_leader on every 100 ms wall-clock tick, and at no tick do two report
// leading. What is the filesystem backend's own: a store file that turns unreadable under live
// processes (its header overwritten in place), where every round fails closed, and the same
// connections lead again once it is restored. Acquire, renew, lose, fence, release, fail over,
// clock skew and a locked store are the conformance suite's (lease-conformance-*.test.ts); the
// real kill -9 and SIGSTOP of a holder are test/cluster/filesystem.test.ts's, on daemons; the
// challenger margin, fence + 1 and the skew budget on both sides of 2 s are
// test/unit/cluster-filesystem-election.test.ts's. ttl 3: renew 1 s, round 1 s.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureArgs } from '../helpers/fixture-bundle.ts';

const CONTENDER = join(import.meta.dirname, 'fixtures', 'fs-contender.ts');
const TTL = 3;
const ROUND_MS = 1000;
/** Process scheduling on a shared 2-core machine: added to the spec bound we check. */
const SLACK_MS = 700;

interface Sample {
  type: 'sample';
  tick: number;
  leader: boolean;
  quorate: boolean;
}

class Contender {
  readonly samples: Sample[] = [];
  readonly logs: { level: string; message: string; wall: number }[] = [];
  private buffer = '';
  readonly ready: Promise<void>;

  constructor(
    readonly name: string,
    proc: ChildProcess,
  ) {
    let onReady: () => void = () => undefined;
    this.ready = new Promise((r) => {
      onReady = r;
    });
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
      }
    });
    proc.stderr!.on('data', (d: Buffer) => process.stderr.write(`[${name}] ${d}`));
  }

  latest(): Sample | undefined {
    return this.samples.at(-1);
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

function start(dir: string, name: string): Contender {
  const proc = spawn(process.execPath, [...fixtureArgs(CONTENDER), dir, name, String(TTL), 'shared'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(proc);
  return new Contender(name, proc);
}

async function fleet(dir: string, names: string[]): Promise<Contender[]> {
  const nodes = names.map((n) => start(dir, n));
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
