// The spawner `launch` uses unless told otherwise. One fire now and then spawns in this thread
// (no hop, the pid known at once). In a burst, launches go to a set of small spawner processes,
// one per core (spawner-process.ts); where they cannot run (no perl), in this thread, paced by
// the scheduler's launch pacer. A burst the scheduler announces (expectLaunches: more fires due
// in one tick than SpawnLoad's limit) goes to them from its first launch.
//
// Why spawner processes: no other spawn path came as near xargs -P4 (bench/RESULTS.md, "Spawn paths").
// Forking from the daemon copies its ~100 MB address space (Node) or at least holds its thread
// for each launch; a ~4 MB perl process forks in a fraction of that, and one per core forks in
// parallel. Each sits in a session of its own: with autogroup scheduling (on by default in most
// distribution kernels) a session is one scheduling entity, and every job of a herd starts in a
// session of its own, so spawners left in the daemon's session get a sliver of the CPU while
// they still have forks to do.
import { availableParallelism } from 'node:os';
import { spawnInThread } from './child.ts';
import { SpawnLoad } from './spawn-policy.ts';
import { SpawnerProcess } from './spawner-process.ts';
import type { Spawner } from './types.ts';

/** Spawner processes, one per core, each started on first use; launches go to the least busy. */
export class SpawnerSet {
  private readonly members: SpawnerProcess[];

  constructor(size = availableParallelism(), make: () => SpawnerProcess = () => new SpawnerProcess()) {
    this.members = Array.from({ length: Math.max(1, size) }, make);
  }

  /** Launches sent but not yet answered, over all members. */
  get backlog(): number {
    let n = 0;
    for (const m of this.members) n += m.backlog;
    return n;
  }

  /** Pids of the running spawner processes (for the memory report and tests). */
  get pids(): number[] {
    return this.members.flatMap((m) => (m.pid === null ? [] : [m.pid]));
  }

  readonly spawn: Spawner = (req, events) => {
    let best: SpawnerProcess | null = null;
    for (const m of this.members) if (m.usable && (!best || m.backlog < best.backlog)) best = m;
    return best ? best.spawn(req, events) : spawnInThread(req, events);
  };

  /** Stops every spawner (the processes they started keep running). */
  close(): void {
    for (const m of this.members) m.close();
  }
}

export function adaptiveSpawner(
  set: SpawnerSet = new SpawnerSet(),
  load: SpawnLoad = new SpawnLoad(),
): Spawner {
  return (req, events) => {
    const now = performance.now();
    // Every launch counts, wherever it went: a herd stays off the thread until it is over (each
    // in-thread fork of the ~100 MB daemon costs it ~3 ms and copy-on-write faults after it).
    // A nice goes to a spawner process, which applies it between fork and exec (spec 09 §3.4).
    const offThread = req.nice !== undefined || load.prefersSpawners(now, set.backlog);
    load.add(now);
    return offThread ? set.spawn(req, events) : spawnInThread(req, events);
  };
}

let shared: Spawner | null = null;
const sharedLoad = new SpawnLoad();

/** One set of helpers per process, each started on first need. */
export function defaultSpawner(): Spawner {
  shared ??= adaptiveSpawner(new SpawnerSet(), sharedLoad);
  return shared;
}

/**
 * The scheduler's word that `count` launches fall due now: a herd goes to the spawner processes
 * from its first launch instead of forking the daemon for the first few (SpawnLoad.expect).
 */
export function expectLaunches(count: number): void {
  sharedLoad.expect(performance.now(), count);
}
