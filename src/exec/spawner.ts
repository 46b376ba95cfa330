// The spawner `launch` uses unless told otherwise. One fire now and then spawns in this thread
// (no hop, the pid known at once). In a burst, launches go to the small spawner process, or,
// where it cannot run (no perl), to the worker pool, which at least keeps this thread free.
import { spawnInThread } from './child.ts';
import { SpawnLoad } from './spawn-policy.ts';
import { SpawnPool } from './spawn-pool.ts';
import { SpawnerProcess } from './spawner-process.ts';
import type { Spawner } from './types.ts';

export function adaptiveSpawner(
  pool: SpawnPool = new SpawnPool(),
  spawner: SpawnerProcess = new SpawnerProcess({ fallback: pool.spawn }),
  load: SpawnLoad = new SpawnLoad(),
): Spawner {
  return (req, events) => {
    const now = performance.now();
    if (load.prefersPool(now, spawner.backlog + pool.backlog)) {
      return spawner.usable ? spawner.spawn(req, events) : pool.spawn(req, events);
    }
    load.add(now);
    return spawnInThread(req, events);
  };
}

let shared: Spawner | null = null;

/** One set of helpers per process, each started on first need. */
export function defaultSpawner(): Spawner {
  shared ??= adaptiveSpawner();
  return shared;
}
