// The spawn worker's program, started with `eval` so it needs neither the bundle nor a loader:
// a few KB of script instead of a second copy of the daemon in the worker's heap.
// It mirrors spawnInThread (child.ts) and speaks the messages typed below.
import type { SpawnRequest, StreamName } from './types.ts';

export type ToWorker =
  | { op: 'spawn'; id: number; req: SpawnRequest }
  | { op: 'destroy'; id: number; stream: StreamName };

export interface WireError {
  message: string;
  code?: string;
}

export type FromWorker =
  | { k: 'ready' }
  | { k: 'spawned'; id: number; pid: number }
  | { k: 'failed'; id: number; err: WireError }
  | { k: 'error'; id: number; err: WireError }
  | { k: 'data'; id: number; stream: StreamName; chunk: Uint8Array }
  | { k: 'end'; id: number; stream: StreamName }
  | { k: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null };

export const SPAWN_WORKER_SOURCE = `
'use strict';
const { spawn } = require('node:child_process');
const { parentPort } = require('node:worker_threads');
const pipes = new Map();
const wire = (err) => ({
  message: err instanceof Error ? err.message : String(err),
  code: err && typeof err.code === 'string' ? err.code : undefined,
});
function start(id, req) {
  let child;
  try {
    child = spawn(req.file, req.args, {
      detached: true,
      stdio: ['inherit', req.captureStdout ? 'pipe' : 'inherit', req.captureStderr ? 'pipe' : 'inherit'],
      env: req.env,
      ...(req.uid != null ? { uid: req.uid } : {}),
      ...(req.gid != null ? { gid: req.gid } : {}),
    });
  } catch (err) {
    parentPort.postMessage({ k: 'failed', id, err: wire(err) });
    return;
  }
  const pid = child.pid;
  child.on('error', (err) => parentPort.postMessage({ k: pid === undefined ? 'failed' : 'error', id, err: wire(err) }));
  if (pid === undefined) {
    if (child.stdout) child.stdout.destroy();
    if (child.stderr) child.stderr.destroy();
    return;
  }
  parentPort.postMessage({ k: 'spawned', id, pid });
  const mine = {};
  pipes.set(id, mine);
  let open = 0;
  let exited = false;
  const forget = () => { if (exited && open === 0) pipes.delete(id); };
  child.on('exit', (code, signal) => {
    exited = true;
    parentPort.postMessage({ k: 'exit', id, code, signal });
    forget();
  });
  for (const stream of ['stdout', 'stderr']) {
    const readable = child[stream];
    if (!readable || !(stream === 'stdout' ? req.captureStdout : req.captureStderr)) continue;
    mine[stream] = readable;
    open += 1;
    let ended = false;
    readable.on('data', (chunk) => {
      if (!ended) parentPort.postMessage({ k: 'data', id, stream, chunk });
    });
    const end = () => {
      if (ended) return;
      ended = true;
      open -= 1;
      parentPort.postMessage({ k: 'end', id, stream });
      forget();
    };
    readable.on('end', end);
    readable.on('close', end);
    readable.on('error', end);
  }
}
parentPort.on('message', (m) => {
  if (m.op === 'spawn') start(m.id, m.req);
  else if (m.op === 'destroy') {
    const readable = pipes.get(m.id) && pipes.get(m.id)[m.stream];
    if (readable) readable.destroy();
  }
});
parentPort.postMessage({ k: 'ready' });
`;
