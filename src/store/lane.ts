// The worker side of the store lanes: one SQLite connection per lane it serves (bulk, lease;
// ./lanes.ts decides which worker a lane's calls go to), one queue in arrival order drained in
// group commits (consecutive writes of one lane), calls whose caller already gave up (deadline
// passed) skipped. Started by ./lanes.ts on the lane bundle (dist/cronstable-lane.mjs), on the
// program bundle (main.ts routes workerData.task === 'cronstable:store-lane' here) or, from
// sources, on ./lane-entry.ts.

import { join } from 'node:path';
import type { MessagePort } from 'node:worker_threads';
import { idleCollections, startIdleCollections } from '../util/idle-collections.ts';
import { isolateMemory } from '../util/isolates.ts';
import { assertNotAdminLocked } from './adminlock.ts';
import { DB_FILE, openConnection } from './connection.ts';
import { Executor, nextGroupSize, type OpCall } from './executor.ts';
import { isOpName, type LaneName } from './ops.ts';
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

type Queued = OpCall & { id: number; lane: LaneName; deadlineMs: number };

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
function sqliteMemory(ex: Executor | undefined): Record<string, unknown> {
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
  const executors: Partial<Record<LaneName, Executor>> = {};
  const opening = new Set<LaneName>();
  let scheduled = false;
  let closing = false;
  // Under Bun the lane's VM holds its garbage and code too (src/util/idle-collections.ts).
  const stopIdleCollections = startIdleCollections();

  const finish = () => {
    stopIdleCollections();
    for (const ex of Object.values(executors)) {
      try {
        ex.db.close();
      } catch {
        // Closing is best effort.
      }
    }
    for (const lane of Object.keys(executors) as LaneName[]) delete executors[lane];
    post({ type: 'closed' });
    // Deno's parentPort has no close(); the main side terminates the thread on 'closed' anyway.
    (port as { close?: () => void }).close?.();
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(drain);
  };

  const drain = () => {
    scheduled = false;
    while (queue.length > 0) {
      const first = queue[0]!;
      const ex = executors[first.lane];
      // In arrival order: a call for a lane whose connection is still opening waits, and so
      // does everything behind it.
      if (!ex) {
        openLane(first.lane);
        return;
      }
      const now = Date.now();
      const expired: LaneResult[] = [];
      const group = queue.splice(
        0,
        nextGroupSize(queue, (a, b) => a.lane === b.lane),
      );
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
    if (closing && opening.size === 0) finish();
  };

  // Opening (pragmas, migrations) may wait behind other processes' first opens: it uses the
  // bulk timeout; the lane's own applies afterwards.
  const open = async (lane: LaneName, setUp: boolean) => {
    const spec = { dir: data.dir, topology: data.topology, busyTimeoutMs: OPEN_BUSY_TIMEOUT_MS, ns: data.ns };
    const conn = await openConnection({ ...spec, setUp });
    const busy = `PRAGMA busy_timeout = ${Math.max(0, Math.floor(data.lanes[lane].busyTimeoutMs))}`;
    conn.db.exec(busy);
    const executor = new Executor(conn.db, {
      ns: data.ns,
      writer: data.writer,
      busyRetry: data.lanes[lane].busyRetry,
      // Faults reach the daemon as the calls' StoreUnavailableError messages.
      file: join(data.dir, DB_FILE),
      reopen: async () => {
        // A `state restore` filling the path holds the admin lock: reopen once it is done.
        assertNotAdminLocked(data.dir);
        const again = await openConnection(spec);
        again.db.exec(busy);
        return again.db;
      },
    });
    return { conn, executor };
  };

  /** The other lane's connection, on its first call: its queued calls fail if it cannot open. */
  const openLane = (lane: LaneName) => {
    if (opening.has(lane) || executors[lane]) return;
    opening.add(lane);
    open(lane, false).then(
      ({ executor }) => {
        opening.delete(lane);
        executors[lane] = executor;
        schedule();
      },
      (e: unknown) => {
        opening.delete(lane);
        const error = serializeError(e);
        const failed = queue.filter((q) => q.lane === lane);
        queue.splice(0, queue.length, ...queue.filter((q) => q.lane !== lane));
        post({ type: 'results', items: failed.map((q) => ({ id: q.id, ok: false, error })) });
        schedule();
      },
    );
  };

  port.on('message', (m: ToLane) => {
    if (m.type === 'memory') {
      const sqlite = Object.fromEntries(
        (Object.keys(data.lanes) as LaneName[]).map((lane) => [lane, sqliteMemory(executors[lane])]),
      );
      post({
        type: 'memory',
        id: m.id,
        report: isolateMemory({ ...sqlite, idleCollections: idleCollections() }),
      });
      return;
    }
    if (m.type === 'close') {
      closing = true;
      if (!scheduled && opening.size === 0) finish();
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
    queue.push({
      id: m.id,
      lane: m.lane,
      op: m.op,
      args: m.args,
      nowMs: m.nowMs,
      deadlineMs: m.deadlineMs,
    });
    schedule();
  });

  opening.add(data.first);
  open(data.first, data.setUp).then(
    ({ conn, executor }) => {
      opening.delete(data.first);
      executors[data.first] = executor;
      post({
        type: 'ready',
        journalMode: conn.journalMode,
        version: conn.db.version,
        runtime: conn.db.runtime,
        warnings: conn.warnings,
      });
      if (queue.length > 0) schedule();
      if (closing && !scheduled) finish();
    },
    (e: unknown) => {
      stopIdleCollections();
      post({ type: 'failed', error: serializeError(e) });
      (port as { close?: () => void }).close?.();
    },
  );
}
