// The spawner `launch` uses unless told otherwise: in-thread when quiet, pooled in a burst.
import { spawnInThread } from './child.ts';
import { SpawnLoad } from './spawn-policy.ts';
import { SpawnPool } from './spawn-pool.ts';
import type { Spawner } from './types.ts';

export function adaptiveSpawner(
  pool: SpawnPool = new SpawnPool(),
  load: SpawnLoad = new SpawnLoad(),
): Spawner {
  return (req, events) => {
    const t0 = performance.now();
    if (pool.usable && load.prefersPool(t0, pool.backlog)) return pool.spawn(req, events);
    const port = spawnInThread(req, events);
    load.add(t0, performance.now() - t0);
    return port;
  };
}

let shared: Spawner | null = null;

/** One pool per process, created on first launch. */
export function defaultSpawner(): Spawner {
  shared ??= adaptiveSpawner();
  return shared;
}
