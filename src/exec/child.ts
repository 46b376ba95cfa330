// The in-thread spawner (spec 02 §3): Node's spawn, reported as ChildEvents (types.ts). The
// spawner processes (spawner-process.ts) deliver the same events for launches made in a burst.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { applyNice } from './launch-place.ts';
import type { ChildEvents, Spawner, SpawnRequest, StreamName } from './types.ts';

/** Node's spawn options for a request: its own process group, stdin inherited. */
export function spawnOptions(req: SpawnRequest) {
  return {
    detached: true,
    stdio: ['inherit', req.captureStdout ? 'pipe' : 'inherit', req.captureStderr ? 'pipe' : 'inherit'] as (
      | 'inherit'
      | 'pipe'
    )[],
    env: req.env,
    ...(req.uid != null ? { uid: req.uid } : {}),
    ...(req.gid != null ? { gid: req.gid } : {}),
    ...(req.cwd !== undefined ? { cwd: req.cwd } : {}),
  };
}

/** Spawns on the calling thread; `spawned`/`failed` for synchronous outcomes are reported before it returns. */
export const spawnInThread: Spawner = (req, events) => {
  let child: ChildProcess;
  try {
    child = spawn(req.file, req.args, spawnOptions(req));
  } catch (err) {
    // Synchronous spawn errors (EPERM from a privilege drop, invalid arguments, ...).
    events.failed(err);
    return { destroy: () => {} };
  }
  const pid = child.pid;
  child.on('error', (err) => {
    if (pid === undefined) events.failed(err);
    else events.error(err);
  });
  if (pid === undefined) {
    // ENOENT/EACCES arrive asynchronously on `error`; the pipes Node set up are useless.
    child.stdout?.destroy();
    child.stderr?.destroy();
    return { destroy: () => {} };
  }
  if (req.nice !== undefined) applyNice(pid, req.nice);
  events.spawned(pid);
  child.on('exit', (code, signal) => events.exit(code, signal));
  const pipes: Partial<Record<StreamName, Readable>> = {};
  if (req.captureStdout && child.stdout) pipes.stdout = watch('stdout', child.stdout, events);
  if (req.captureStderr && child.stderr) pipes.stderr = watch('stderr', child.stderr, events);
  return { destroy: (stream) => pipes[stream]?.destroy() };
};

function watch(stream: StreamName, readable: Readable, events: ChildEvents): Readable {
  let ended = false;
  readable.on('data', (chunk: Buffer) => {
    if (!ended) events.data(stream, chunk);
  });
  const end = () => {
    if (ended) return;
    ended = true;
    events.end(stream);
  };
  readable.on('end', end);
  readable.on('close', end);
  readable.on('error', end);
  return readable;
}
