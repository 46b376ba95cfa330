// This node's live load (CPU, memory): a cgroup-v2-aware reading shared by the web API's
// `/node` and the cluster's node stats (`X-Cronstable-Node-Stats`, spec 05 §5.3).
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, freemem, totalmem } from 'node:os';

export interface NodeResources {
  cpu_percent: number;
  cpu_count: number;
  mem_percent: number;
  mem_used_bytes: number;
  mem_total_bytes: number;
  proc_rss_bytes: number;
  proc_cpu_percent: number;
}

interface CpuTimes {
  busy: number;
  total: number;
  proc: number;
  at: number;
}

function readNumber(path: string): number | null {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return /^\d+$/.test(text) ? Number(text) : null;
  } catch {
    return null;
  }
}

/** Memory (used, total): the cgroup's limit when one is set, else the host's available memory. */
function memory(): { used: number; total: number } {
  const limit = readNumber('/sys/fs/cgroup/memory.max');
  const current = readNumber('/sys/fs/cgroup/memory.current');
  const host = totalmem();
  if (limit !== null && current !== null && limit < host) return { used: current, total: limit };
  let available = freemem();
  try {
    const m = /MemAvailable:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (m) available = Number(m[1]) * 1024;
  } catch {
    // not Linux: os.freemem() it is
  }
  return { used: Math.max(0, host - available), total: host };
}

function cpuTimes(): CpuTimes {
  let busy = 0;
  let total = 0;
  for (const c of cpus()) {
    const t = c.times;
    const all = t.user + t.nice + t.sys + t.idle + t.irq;
    total += all;
    busy += all - t.idle;
  }
  const u = process.cpuUsage();
  return { busy, total, proc: (u.user + u.system) / 1000, at: performance.now() };
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** Readings of this node; CPU figures are averaged between two readings (at most every 250 ms). */
export class NodeLoad {
  private last: CpuTimes = cpuTimes();
  private lastReading: NodeResources | null = null;
  private lastReadingAt = 0;

  /** The current reading; CPU figures are averaged since the previous reading. */
  read(): NodeResources {
    const now = performance.now();
    if (this.lastReading && now - this.lastReadingAt < 250) return this.lastReading;
    const cur = cpuTimes();
    const dTotal = cur.total - this.last.total;
    const dBusy = cur.busy - this.last.busy;
    const dWall = cur.at - this.last.at;
    const count = availableParallelism();
    const cpuPercent = dTotal > 0 ? (100 * dBusy) / dTotal : 0;
    const procPercent = dWall > 0 ? (100 * (cur.proc - this.last.proc)) / dWall : 0;
    this.last = cur;
    const mem = memory();
    this.lastReading = {
      cpu_percent: round1(Math.min(100, Math.max(0, cpuPercent))),
      cpu_count: count,
      mem_percent: round1(mem.total > 0 ? (100 * mem.used) / mem.total : 0),
      mem_used_bytes: mem.used,
      mem_total_bytes: mem.total,
      proc_rss_bytes: process.memoryUsage.rss(),
      proc_cpu_percent: round1(Math.max(0, procPercent)),
    };
    this.lastReadingAt = now;
    return this.lastReading;
  }
}
