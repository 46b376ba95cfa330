// What each V8 isolate of this process holds (issue 23): the main thread answers for itself and
// every worker thread that registers a probe (the store lanes) answers through its message port.
// Read only by the debug memory report (src/daemon/memory-report.ts); nothing here runs otherwise.
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { errorText } from './errors.ts';

export interface IsolateMemory {
  /** v8.getHeapStatistics() of the isolate, bytes. */
  heap: {
    totalHeapSize: number;
    usedHeapSize: number;
    totalPhysicalSize: number;
    mallocedMemory: number;
    externalMemory: number;
  };
  /** Per space (new, old, code, large object, ...): committed and used bytes. */
  spaces: { name: string; size: number; used: number; physical: number }[];
  /** Whatever else the thread knows about itself (a lane's SQLite page cache, ...). */
  extra?: Record<string, unknown>;
}

/** The calling isolate's own figures. */
export function isolateMemory(extra?: Record<string, unknown>): IsolateMemory {
  const h = getHeapStatistics();
  return {
    heap: {
      totalHeapSize: h.total_heap_size,
      usedHeapSize: h.used_heap_size,
      totalPhysicalSize: h.total_physical_size,
      mallocedMemory: h.malloced_memory,
      externalMemory: h.external_memory,
    },
    spaces: getHeapSpaceStatistics().map((s) => ({
      name: s.space_name,
      size: s.space_size,
      used: s.space_used_size,
      physical: (s as { space_physical_size?: number }).space_physical_size ?? 0,
    })),
    ...(extra ? { extra } : {}),
  };
}

type Probe = () => Promise<IsolateMemory>;
const probes = new Map<string, Probe>();

/** A worker thread's probe under `name` (unique per live worker); returns its removal. */
export function registerIsolate(name: string, probe: Probe): () => void {
  probes.set(name, probe);
  return () => {
    if (probes.get(name) === probe) probes.delete(name);
  };
}

/** Every registered worker's figures (a worker that does not answer in time reports why). */
export async function workerIsolates(
  timeoutMs = 2000,
): Promise<Record<string, IsolateMemory | { error: string }>> {
  const out: Record<string, IsolateMemory | { error: string }> = {};
  await Promise.all(
    [...probes].map(async ([name, probe]) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        out[name] = await Promise.race([probe(), late]);
      } catch (e) {
        out[name] = { error: errorText(e) };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return out;
}
