// The shape of a configured DAG, computed once per config object: walk order and deduplicated edges.
import type { DagConfig, DagTaskConfig } from '../config/types.ts';

export interface DagGraph {
  /** Topological order, ties broken by config order (so a config already listed upstream-first keeps it). */
  order: readonly DagTaskConfig[];
  byId: ReadonlyMap<string, DagTaskConfig>;
  /** Each task's upstream ids, deduplicated (`dependsOn: [a, a]` is one edge), in first-mention order. */
  deps: ReadonlyMap<string, readonly string[]>;
  /** Position of each id in config order (the spec's walk order for launches). */
  configIndex: ReadonlyMap<string, number>;
  /** For each position in `order`: the positions (in `order`, so all smaller) of its upstreams. */
  depPos: readonly Int32Array[];
  /** For each position in `order`: the position of its expand source, or -1. */
  sourcePos: Int32Array;
}

const cache = new WeakMap<DagConfig, DagGraph>();

/**
 * The walk order. The spec walks tasks in config order; we walk a topological order that equals config
 * order whenever config order is already topological, so one pass settles every cascade it can (a
 * downstream listed before its upstream would otherwise wait a whole advance for the cascade to reach it).
 */
export function graphOf(dag: DagConfig): DagGraph {
  const hit = cache.get(dag);
  if (hit) return hit;
  const byId = new Map(dag.tasks.map((t) => [t.id, t]));
  const configIndex = new Map(dag.tasks.map((t, i) => [t.id, i]));
  const deps = new Map<string, string[]>();
  const children = new Map<string, number[]>();
  const indegree: number[] = [];
  dag.tasks.forEach((t, i) => {
    const ds = [...new Set(t.dependsOn)].filter((d) => d !== t.id && byId.has(d));
    deps.set(t.id, ds);
    indegree[i] = ds.length;
    for (const d of ds) {
      const list = children.get(d);
      if (list) list.push(i);
      else children.set(d, [i]);
    }
  });
  // Kahn's algorithm taking the smallest config index first: a binary heap of indices.
  const heap: number[] = [];
  const push = (v: number) => {
    heap.push(v);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heap[p]! <= v) break;
      heap[i] = heap[p]!;
      i = p;
    }
    heap[i] = v;
  };
  const pop = (): number => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= heap.length) break;
        const c = l + 1 < heap.length && heap[l + 1]! < heap[l]! ? l + 1 : l;
        if (heap[c]! >= last) break;
        heap[i] = heap[c]!;
        i = c;
      }
      heap[i] = last;
    }
    return top;
  };
  indegree.forEach((d, i) => {
    if (d === 0) push(i);
  });
  const order: DagTaskConfig[] = [];
  while (heap.length > 0) {
    const i = pop();
    const t = dag.tasks[i]!;
    order.push(t);
    for (const c of children.get(t.id) ?? []) if (--indegree[c]! === 0) push(c);
  }
  // Config validation rejects cycles; should one slip through, its members still get walked (last).
  if (order.length < dag.tasks.length) {
    const placed = new Set(order);
    for (const t of dag.tasks) if (!placed.has(t)) order.push(t);
  }
  const pos = new Map(order.map((t, p) => [t.id, p]));
  const depPos = order.map((t) => Int32Array.from(deps.get(t.id)!, (d) => pos.get(d)!));
  const sourcePos = Int32Array.from(order, (t) => (t.expand ? (pos.get(t.expand.fromTask) ?? -1) : -1));
  const graph: DagGraph = { order, byId, deps, configIndex, depPos, sourcePos };
  cache.set(dag, graph);
  return graph;
}
