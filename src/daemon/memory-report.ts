// Debug only (issue 23): where the daemon's memory goes. With CRONSTABLE_DEBUG_MEMORY=<file> in
// its environment, the daemon writes a JSON breakdown to <file> on each SIGUSR2: every isolate
// (the main thread and each worker that registered in src/util/isolates.ts) with its heap by
// space, process.memoryUsage(), /proc/self/smaps_rollup and the smaps mappings summed by kind,
// plus what the caller adds (per-job retention). CRONSTABLE_DEBUG_MEMORY_GC=1 runs a full
// collection first (live sizes); CRONSTABLE_DEBUG_MEMORY_SNAPSHOT=1 also writes <file>.heapsnapshot.
// Without the variable nothing is installed. bench/serve.bench.ts and the notes in bench/RESULTS.md read it.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { bodyCollections } from '../http/collect-after.ts';
import { errorText } from '../util/errors.ts';
import { idleCollections } from '../util/idle-collections.ts';
import { isolateMemory, workerIsolates } from '../util/isolates.ts';

export const DEBUG_MEMORY_ENV = 'CRONSTABLE_DEBUG_MEMORY';

/** /proc/self/smaps_rollup as kB numbers (empty off Linux). */
function smapsRollup(): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    for (const line of readFileSync('/proc/self/smaps_rollup', 'utf8').split('\n')) {
      const m = /^(\w+):\s+(\d+) kB/.exec(line);
      if (m) out[m[1]!] = Number(m[2]);
    }
  } catch {
    // Not Linux.
  }
  return out;
}

/** Resident kB of /proc/self/smaps summed by what is mapped: the program, libraries, anonymous memory, stacks. */
export function smapsByKind(
  text: string,
): Record<string, { rssKb: number; privateKb: number; mappings: number }> {
  const out: Record<string, { rssKb: number; privateKb: number; mappings: number }> = {};
  let kind = '';
  for (const line of text.split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const path = head[1]!.trim();
      if (path === '') kind = 'anonymous';
      else if (path.startsWith('[')) kind = path.replace(/:.*$/, '');
      else if (/\.so(\.|$)/.test(path))
        kind = `lib ${path
          .split('/')
          .pop()!
          .replace(/\.so.*$/, '.so')}`;
      else kind = `file ${path.split('/').pop()}`;
      out[kind] ??= { rssKb: 0, privateKb: 0, mappings: 0 };
      out[kind]!.mappings++;
      continue;
    }
    const m = /^(Rss|Private_Clean|Private_Dirty):\s+(\d+) kB/.exec(line);
    if (!m || !kind) continue;
    if (m[1] === 'Rss') out[kind]!.rssKb += Number(m[2]);
    else out[kind]!.privateKb += Number(m[2]);
  }
  return out;
}

/** A full collection (debug use): V8's collector is reachable only through a flag set at run time. */
function fullGc(): boolean {
  // Bun: a synchronous full collection, then the native allocator hands back what it freed.
  const bun = (globalThis as { Bun?: { gc(sync: boolean): void } }).Bun;
  if (bun) {
    bun.gc(true);
    return true;
  }
  try {
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
    return true;
  } catch {
    return false;
  }
}

/**
 * Under Bun: JavaScriptCore's heap (live size, capacity, memory its objects hold outside it) and
 * the native allocator's (mimalloc) committed bytes, which process.memoryUsage() does not split.
 */
async function bunMemory(): Promise<Record<string, unknown> | null> {
  if (!process.versions.bun) return null;
  const specifier = 'bun:jsc'; // non-literal: bundlers and the type checker leave it alone
  try {
    const jsc = (await import(specifier)) as {
      heapStats(): { heapSize: number; heapCapacity: number; extraMemorySize: number; objectCount: number };
      memoryUsage(): Record<string, number>;
      /** Only in a binary built with --bytecode-order (null elsewhere; absent before Bun 1.4.5). */
      bytecodeOrderStats?(): unknown;
    };
    const { heapSize, heapCapacity, extraMemorySize, objectCount } = jsc.heapStats();
    // How many functions this thread loaded from the profile's hot part and from outside it
    // (scripts/binary-order.mjs): a daemon loading many cold ones has outgrown the profile's run.
    const bytecodeOrder = jsc.bytecodeOrderStats?.() ?? null;
    return {
      heapSize,
      heapCapacity,
      extraMemorySize,
      objectCount,
      allocator: jsc.memoryUsage(),
      bytecodeOrder,
    };
  } catch (e) {
    return { error: errorText(e) };
  }
}

export async function memoryReport(
  extra: () => Record<string, unknown>,
  opts: { gcFirst?: boolean } = {},
): Promise<Record<string, unknown>> {
  // With gcFirst the main isolate's figures are what is live, not what awaits collection.
  const collected = opts.gcFirst ? fullGc() : false;
  let smaps = {};
  try {
    smaps = smapsByKind(readFileSync('/proc/self/smaps', 'utf8'));
  } catch {
    // Not Linux.
  }
  let threads: number | null = null;
  try {
    threads = Number(/Threads:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
  } catch {
    // Not Linux.
  }
  return {
    at: new Date().toISOString(),
    pid: process.pid,
    runtime: process.versions.bun ? `bun ${process.versions.bun}` : `node ${process.versions.node}`,
    threads,
    collected,
    memoryUsage: process.memoryUsage(),
    smapsRollupKb: smapsRollup(),
    smapsByKind: smaps,
    isolates: { main: isolateMemory(), ...(await workerIsolates()) },
    bun: await bunMemory(),
    // Under Bun: the collections after large response bodies (src/http/collect-after.ts).
    bodyCollections: bodyCollections(),
    // Under Bun: the periodic collections while the daemon runs (src/util/idle-collections.ts).
    idleCollections: idleCollections(),
    ...extra(),
  };
}

/** Installs the SIGUSR2 writer when CRONSTABLE_DEBUG_MEMORY is set; returns whether it did. */
export function installMemoryReport(extra: () => Record<string, unknown>, log: (m: string) => void): boolean {
  const file = process.env[DEBUG_MEMORY_ENV];
  if (!file) return false;
  process.on('SIGUSR2', () => {
    void memoryReport(extra, { gcFirst: process.env[`${DEBUG_MEMORY_ENV}_GC`] === '1' }).then(
      (report) => {
        // Whole or not at all: a reader polling the file never sees half a report.
        // A heap snapshot of the main isolate beside it, when asked (slow: seconds, and the heap twice over).
        if (process.env[`${DEBUG_MEMORY_ENV}_SNAPSHOT`] === '1') writeHeapSnapshot(`${file}.heapsnapshot`);
        writeFileSync(`${file}.tmp`, JSON.stringify(report, null, 1));
        renameSync(`${file}.tmp`, file);
      },
      (e: unknown) => log(`memory report failed: ${errorText(e)}`),
    );
  });
  log(`debug: ${DEBUG_MEMORY_ENV} set: SIGUSR2 writes a memory report to ${file}`);
  return true;
}
