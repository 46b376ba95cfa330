// The worker side of a store lane: one SQLite connection, a queue drained in group commits,
// calls whose caller already gave up (deadline passed) skipped. Started by ./lanes.ts on the
// bundle itself (main.ts routes workerData.task === 'cronstable:store-lane' here) or, from
// sources, on ./lane-entry.ts.

import { join } from 'node:path';
import type { MessagePort } from 'node:worker_threads';
import { isolateMemory } from '../util/isolates.ts';
import { assertNotAdminLocked } from './adminlock.ts';
import { DB_FILE, openConnection } from './connection.ts';
import { Executor, MAX_BATCH, type OpCall } from './executor.ts';
import { isOpName, OPERATIONS } from './ops.ts';
import {
  type FromLane,
  type LaneResult,
  type LaneWorkerData,
  serializeError,
  type ToLane,
} from './protocol.ts';
import { StoreUnavailableError } from './types.ts';

/** busy_timeout while a lane opens its connection (pragmas, migrations). */
const OPEN_BUSY_TIMEOUT_MS = 5000;

type Queued = OpCall & { id: number; deadlineMs: number };

/** Transfers (rather than copies) a result's byte payload when it owns its whole buffer. */
function transferables(value: unknown, out: ArrayBuffer[]): void {
  const bytes = (value as { bytes?: unknown } | null)?.bytes;
  if (
    bytes instanceof Uint8Array &&
    bytes.buffer instanceof ArrayBuffer &&
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    !out.includes(bytes.buffer)
  )
    out.push(bytes.buffer);
}

/** The connection's page cache as configured and as filled at most (pages held <= both). */
function sqliteMemory(ex: Executor | null): Record<string, unknown> {
  if (!ex) return { sqlite: 'not open' };
  const pragma = (name: string) => Number(Object.values(ex.db.prepare(`PRAGMA ${name}`).get() ?? {})[0]);
  const pageSize = pragma('page_size');
  const cacheSize = pragma('cache_size');
  const pageCount = pragma('page_count');
  // cache_size < 0 is a size in KiB, > 0 a number of pages.
  const cachePages = cacheSize < 0 ? Math.floor((-cacheSize * 1024) / pageSize) : cacheSize;
  return {
    sqlitePageSize: pageSize,
    sqliteCachePages: cachePages,
    sqliteDbPages: pageCount,
    sqliteCacheBoundBytes: Math.min(cachePages, pageCount) * pageSize,
  };
}

export function runStoreLane(data: LaneWorkerData, port: MessagePort): void {
  const post = (m: FromLane, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
  const queue: Queued[] = [];
  let executor: Executor | null = null;
  let scheduled = false;
  let closing = false;

  const finish = () => {
    try {
      executor?.db.close();
    } catch {
      // Closing is best effort.
    }
    executor = null;
    post({ type: 'closed' });
    // Deno's parentPort has no close(); the main side terminates the thread on 'closed' anyway.
    (port as { close?: () => void }).close?.();
  };

  const drain = () => {
    scheduled = false;
    const ex = executor;
    if (!ex) return;
    while (queue.length > 0) {
      const now = Date.now();
      const expired: LaneResult[] = [];
      let group: Queued[];
      const first = queue[0]!;
      if (OPERATIONS[first.op].write) {
        let n = 0;
        while (n < queue.length && n < MAX_BATCH && OPERATIONS[queue[n]!.op].write) n++;
        group = queue.splice(0, n);
      } else group = queue.splice(0, 1);
      const live = group.filter((q) => {
        if (q.deadlineMs >= now) return true;
        expired.push({
          id: q.id,
          ok: false,
          error: { kind: 'unavailable', message: 'expired before it ran' },
        });
        return false;
      });
      const deadline = Math.min(...live.map((q) => q.deadlineMs));
      const outcomes = live.length > 0 ? ex.runBatch(live, deadline) : [];
      const items: LaneResult[] = expired;
      const transfer: ArrayBuffer[] = [];
      outcomes.forEach((o, i) => {
        const id = live[i]!.id;
        if (o.ok) {
          transferables(o.value, transfer);
          items.push({ id, ok: true, value: o.value });
        } else items.push({ id, ok: false, error: serializeError(o.error) });
      });
      post({ type: 'results', items }, transfer);
    }
    if (closing) finish();
  };

  port.on('message', (m: ToLane) => {
    if (m.type === 'memory') {
      post({ type: 'memory', id: m.id, report: isolateMemory(sqliteMemory(executor)) });
      return;
    }
    if (m.type === 'close') {
      closing = true;
      if (!scheduled) finish();
      return;
    }
    if (closing) {
      post({
        type: 'results',
        items: [{ id: m.id, ok: false, error: { kind: 'unavailable', message: 'store closed' } }],
      });
      return;
    }
    if (!isOpName(m.op)) {
      const error = serializeError(new StoreUnavailableError(`unknown store operation '${m.op}'`));
      post({ type: 'results', items: [{ id: m.id, ok: false, error }] });
      return;
    }
    queue.push({ id: m.id, op: m.op, args: m.args, nowMs: m.nowMs, deadlineMs: m.deadlineMs });
    if (!scheduled && executor) {
      scheduled = true;
      setImmediate(drain);
    }
  });

  // Opening (pragmas, migrations) may wait behind other processes' first opens: it uses the
  // bulk timeout; the lane's own applies afterwards.
  openConnection({
    dir: data.dir,
    topology: data.topology,
    busyTimeoutMs: OPEN_BUSY_TIMEOUT_MS,
    ns: data.ns,
  }).then(
    (conn) => {
      const busy = `PRAGMA busy_timeout = ${Math.max(0, Math.floor(data.busyTimeoutMs))}`;
      conn.db.exec(busy);
      executor = new Executor(conn.db, {
        ns: data.ns,
        writer: data.writer,
        busyRetry: data.busyRetry,
        // Faults reach the daemon as the calls' StoreUnavailableError messages.
        file: join(data.dir, DB_FILE),
        reopen: async () => {
          // A `state restore` filling the path holds the admin lock: reopen once it is done.
          assertNotAdminLocked(data.dir);
          const again = await openConnection({
            dir: data.dir,
            topology: data.topology,
            busyTimeoutMs: OPEN_BUSY_TIMEOUT_MS,
            ns: data.ns,
          });
          again.db.exec(busy);
          return again.db;
        },
      });
      post({
        type: 'ready',
        journalMode: conn.journalMode,
        version: conn.db.version,
        runtime: conn.db.runtime,
        warnings: conn.warnings,
      });
      if (queue.length > 0 && !scheduled) {
        scheduled = true;
        setImmediate(drain);
      }
      if (closing && !scheduled) finish();
    },
    (e: unknown) => {
      post({ type: 'failed', error: serializeError(e) });
      (port as { close?: () => void }).close?.();
    },
  );
}
