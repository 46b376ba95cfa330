// The DAG card and drawer's logic (spec 06 §9.2, spec 04 §9): the `/dags` routes' shapes (inferred from the
// wire schemas in src/api/wire), the graph layout by dependency depth, state tones, and which buttons a task
// instance shows. Pure, so the unit tests cover it without a browser.

import type {
  DagSummary as ApiDag,
  DagRun as ApiDagRun,
  DagRunSummary as ApiDagRunRow,
  DagRuns as ApiDagRuns,
  DagTaskSummary as ApiDagTask,
  DagTrigger as ApiDagTrigger,
  DagTaskEntry as ApiTaskEntry,
  DagXcom as ApiXcom,
  DagXcomEntry as ApiXcomEntry,
} from '../api/wire/dags.schema.ts';

export type {
  ApiDag,
  ApiDagRun,
  ApiDagRunRow,
  ApiDagRuns,
  ApiDagTask,
  ApiDagTrigger,
  ApiTaskEntry,
  ApiXcom,
  ApiXcomEntry,
};

export type DagTone = 'ok' | 'fail' | 'run' | 'wait' | 'skip' | 'idle';

/** The tone a task or run state is drawn in (graph fill, badges). */
export function stateTone(state: string | null | undefined): DagTone {
  switch (state) {
    case 'success':
      return 'ok';
    case 'failed':
    case 'upstream_failed':
      return 'fail';
    case 'running':
    case 'expanded':
      return 'run';
    case 'up_for_retry':
      return 'wait';
    case 'skipped':
      return 'skip';
    default:
      return 'idle';
  }
}

/** Dependency depth per task: 0 for roots, else 1 + the deepest upstream. Unknown upstreams count as roots. */
export function taskDepths(tasks: readonly Pick<ApiDagTask, 'id' | 'dependsOn'>[]): Map<string, number> {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const walk = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    const t = byId.get(id);
    if (!t || visiting.has(id)) return -1; // a cycle never validates; guard anyway
    visiting.add(id);
    let d = 0;
    for (const up of t.dependsOn) d = Math.max(d, walk(up) + 1);
    visiting.delete(id);
    depth.set(id, d);
    return d;
  };
  for (const t of tasks) walk(t.id);
  return depth;
}

export interface GraphNode {
  id: string;
  depth: number;
  row: number;
  x: number;
  y: number;
}

export interface GraphEdge {
  from: string;
  to: string;
}

export interface GraphLayout {
  nodes: GraphNode[];
  edges: GraphEdge[];
  width: number;
  height: number;
}

export const NODE_W = 140;
export const NODE_H = 40;
const GAP_X = 50;
const GAP_Y = 18;
const PAD = 10;

/** Columns by depth (left to right), rows in config order within a column. */
export function layoutGraph(tasks: readonly Pick<ApiDagTask, 'id' | 'dependsOn'>[]): GraphLayout {
  const depths = taskDepths(tasks);
  const rows = new Map<number, number>();
  const nodes: GraphNode[] = [];
  for (const t of tasks) {
    const depth = Math.max(0, depths.get(t.id) ?? 0);
    const row = rows.get(depth) ?? 0;
    rows.set(depth, row + 1);
    nodes.push({
      id: t.id,
      depth,
      row,
      x: PAD + depth * (NODE_W + GAP_X),
      y: PAD + row * (NODE_H + GAP_Y),
    });
  }
  const ids = new Set(tasks.map((t) => t.id));
  const edges = tasks.flatMap((t) =>
    [...new Set(t.dependsOn)].filter((up) => ids.has(up)).map((up) => ({ from: up, to: t.id })),
  );
  const cols = nodes.reduce((m, n) => Math.max(m, n.depth + 1), 0);
  const maxRows = Math.max(0, ...rows.values());
  return {
    nodes,
    edges,
    width: cols === 0 ? 0 : PAD * 2 + cols * NODE_W + (cols - 1) * GAP_X,
    height: maxRows === 0 ? 0 : PAD * 2 + maxRows * NODE_H + (maxRows - 1) * GAP_Y,
  };
}

export interface NodeView {
  state: string | null;
  label: string;
  /** An approval gate waiting for a person: drawn in the warning tone rather than as running. */
  awaiting: boolean;
}

/** What a graph node shows for a run: its state, and for a mapped task the instance count and progress. */
export function nodeView(task: Pick<ApiDagTask, 'id' | 'mapped'>, run: ApiDagRun | null): NodeView {
  const entry = run?.tasks[task.id];
  if (!task.mapped)
    return { state: entry?.state ?? null, label: task.id, awaiting: entry?.awaitingApproval === true };
  const instances = run
    ? Object.values(run.tasks).filter((e) => e.id === task.id && e.mapIndex !== null)
    : [];
  if (instances.length === 0)
    return { state: entry?.state ?? null, label: `${task.id} [×?]`, awaiting: false };
  const done = instances.filter((e) => e.state === 'success').length;
  return {
    state: mappedState(instances.map((e) => e.state)),
    label: `${task.id} [×${instances.length}] ${done}/${instances.length}`,
    awaiting: false,
  };
}

/** A mapped task's colour: failing wins, then running, then all-success. */
function mappedState(states: readonly string[]): string {
  if (states.some((s) => s === 'failed' || s === 'upstream_failed')) return 'failed';
  if (states.some((s) => s === 'running' || s === 'up_for_retry' || s === 'pending')) return 'running';
  if (states.every((s) => s === 'skipped')) return 'skipped';
  return 'success';
}

/** Approve / Reject show on an approval gate that is waiting for a decision, and only there. */
export function showDecisionButtons(
  entry: ApiTaskEntry,
  task: Pick<ApiDagTask, 'type'> | undefined,
): boolean {
  return task?.type === 'approval' && entry.awaitingApproval === true && !entry.approval;
}

/** The Tasks tab's label for an instance key: `load#2 (us)`. */
export function instanceLabel(key: string, entry: ApiTaskEntry): string {
  if (entry.mapIndex === null) return key;
  const item = entry.mapItem === undefined ? '' : ` (${shortValue(entry.mapItem)})`;
  return `${key}${item}`;
}

function shortValue(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 24 ? `${s.slice(0, 23)}…` : s;
}

/** The card's "schedule" cell. */
export function scheduleText(d: Pick<ApiDag, 'scheduled' | 'schedule' | 'enabled'>): string {
  if (!d.enabled) return 'disabled';
  if (!d.scheduled) return 'manual';
  return d.schedule ?? 'scheduled';
}

/** The card's running count. */
export function runningCount(d: Pick<ApiDag, 'runCounts'>): number {
  return d.runCounts?.running ?? 0;
}

/** One segment of the card's stacked outcome bar. */
export interface OutcomeSegment {
  tone: 'ok' | 'fail' | 'run';
  label: string;
  count: number;
  /** Share of all runs, 0-100. */
  percent: number;
}

/** The card's stacked bar over a DAG's kept runs: succeeded, failed, still running (spec 06 §9.2). */
export function outcomeSegments(runCounts: Record<string, number> | undefined): OutcomeSegment[] {
  const c = runCounts ?? {};
  const parts: [OutcomeSegment['tone'], string, number][] = [
    ['ok', 'success', c.success ?? 0],
    ['fail', 'failed', c.failed ?? 0],
    ['run', 'running', c.running ?? 0],
  ];
  const total = parts.reduce((n, [, , k]) => n + k, 0);
  if (total === 0) return [];
  return parts
    .filter(([, , k]) => k > 0)
    .map(([tone, label, count]) => ({ tone, label, count, percent: (100 * count) / total }));
}

/** The bar's accessible name: `3 success, 1 failed of 4 runs`. */
export function outcomeText(segments: readonly OutcomeSegment[]): string {
  const total = segments.reduce((n, s) => n + s.count, 0);
  return `${segments.map((s) => `${s.count} ${s.label}`).join(', ')} of ${total} run${total === 1 ? '' : 's'}`;
}

/** One line per run in the Runs tab: `success 4 · running 1` ordered by how much a person cares. */
export function taskStateSummary(counts: Record<string, number>): string {
  const order = ['failed', 'upstream_failed', 'running', 'up_for_retry', 'pending', 'success', 'skipped'];
  return order
    .filter((s) => (counts[s] ?? 0) > 0)
    .map((s) => `${s.replace('_', ' ')} ${counts[s]}`)
    .join(' · ');
}

export const XCOM_INLINE_MAX = 256;

/** An XCom value shown inline when it came back and is small; otherwise null (size only). */
export function xcomInline(e: ApiXcomEntry): string | null {
  if (e.value === undefined || e.size > XCOM_INLINE_MAX) return null;
  return e.value.trimEnd();
}

/** Epoch seconds to `HH:MM:SS` UTC, or an em dash. */
export function clockOf(epochSeconds: number | null | undefined): string {
  if (epochSeconds === null || epochSeconds === undefined) return '—';
  return new Date(epochSeconds * 1000).toISOString().slice(11, 19);
}

/** Elapsed seconds between two epoch-second stamps (or until `now`), `—` before a start. */
export function tookText(start: number | null, end: number | null, nowMs: number): string {
  if (start === null) return '—';
  const s = Math.max(0, (end ?? nowMs / 1000) - start);
  return s < 60 ? `${s.toFixed(1)}s` : `${Math.floor(s / 60)}m${Math.round(s % 60)}s`;
}

/** The text a decision answer leaves in the Tasks tab: the server's 409 message, verbatim. */
export function decisionMessage(status: number, body: string): string {
  let error: string | null = null;
  try {
    const v = JSON.parse(body) as { error?: unknown; state?: unknown };
    if (typeof v.error === 'string') error = v.error;
  } catch {
    // not JSON: fall back to the raw body
  }
  if (status >= 200 && status < 300) return 'decision recorded';
  return `${status === 409 ? 'Already decided' : `HTTP ${status}`}: ${error ?? (body || 'no answer')}`;
}

/** The card's shape line under a DAG's name: `4 tasks · 1 approval · 1 sensor · fan-out`. */
export function dagShapeText(tasks: readonly Pick<ApiDagTask, 'type' | 'mapped'>[]): string {
  const parts = [`${tasks.length} task${tasks.length === 1 ? '' : 's'}`];
  const approvals = tasks.filter((t) => t.type === 'approval').length;
  const sensors = tasks.filter((t) => t.type === 'sensor').length;
  if (approvals > 0) parts.push(`${approvals} approval${approvals === 1 ? '' : 's'}`);
  if (sensors > 0) parts.push(`${sensors} sensor${sensors === 1 ? '' : 's'}`);
  if (tasks.some((t) => t.mapped)) parts.push('fan-out');
  return parts.join(' · ');
}

/** Backfill needs computable instants: manual-only DAGs get a disabled button (spec 06 §9.2). */
export function canBackfill(d: Pick<ApiDag, 'scheduled'>): boolean {
  return d.scheduled;
}

/** `in 7s` / `in 2m05s` / `due now`, for a due time in epoch seconds. */
export function dueIn(atSeconds: number, nowMs: number): string {
  const s = Math.round(atSeconds - nowMs / 1000);
  if (s <= 0) return 'due now';
  return s < 60 ? `in ${s}s` : `in ${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * A sensor's poke line (spec 04 §3.5): how many pokes so far and when the next is due, whether one is
 * in flight now, or on which poke it succeeded. Empty for other kinds.
 */
export function sensorDetail(e: ApiTaskEntry, nowMs: number): string {
  if (e.pokeCount === undefined) return '';
  const n = e.pokeCount;
  if (e.state === 'success') return `succeeded on poke #${n}`;
  if (e.state !== 'running') return n > 0 ? `${n} poke${n === 1 ? '' : 's'}` : '';
  if (e.nextPokeAt !== null && e.nextPokeAt !== undefined && !e.proc)
    return `poke #${n} · next poke ${clockOf(e.nextPokeAt)} (${dueIn(e.nextPokeAt, nowMs)})`;
  return `poking (#${n + 1})`;
}

/** The Tasks tab's detail cell: approval decision, sensor pokes, when a retry is due, or the failure. */
export function taskDetail(e: ApiTaskEntry, nowMs = Date.now()): string {
  if (e.awaitingApproval) return 'awaiting a decision';
  if (e.approval) return `${e.approval.decision} by ${e.approval.by}`;
  if (e.state === 'up_for_retry' && e.nextRetryAt) {
    const why = e.failReason ? ` after ${e.failReason}` : '';
    return `retry due ${clockOf(e.nextRetryAt)} (${dueIn(e.nextRetryAt, nowMs)})${why}`;
  }
  const sensor = sensorDetail(e, nowMs);
  if (sensor && e.state !== 'failed') return sensor;
  if (e.failReason) return sensor ? `${e.failReason} · ${sensor}` : e.failReason;
  return '';
}

/** The progress of a mapped task's instances (the Tasks tab's fan-out meter). */
export interface FanOut {
  total: number;
  done: number;
  success: number;
  failed: number;
  skipped: number;
  running: number;
  pending: number;
}

/** Null while the placeholder has not expanded (or for a task that is not mapped). */
export function fanOut(tasks: Record<string, ApiTaskEntry>, id: string): FanOut | null {
  if (tasks[id]?.state !== 'expanded') return null;
  const f: FanOut = { total: 0, done: 0, success: 0, failed: 0, skipped: 0, running: 0, pending: 0 };
  for (const e of Object.values(tasks)) {
    if (e.id !== id || e.mapIndex === null) continue;
    f.total++;
    if (e.state === 'success') f.success++;
    else if (e.state === 'failed' || e.state === 'upstream_failed') f.failed++;
    else if (e.state === 'skipped') f.skipped++;
    else if (e.state === 'running' || e.state === 'up_for_retry') f.running++;
    else f.pending++;
  }
  f.done = f.success + f.failed + f.skipped;
  return f;
}

export function fanOutText(f: FanOut): string {
  if (f.total === 0) return 'fan-out of 0 items (nothing to run)';
  const parts = [`${f.done}/${f.total} done`];
  if (f.failed > 0) parts.push(`${f.failed} failed`);
  if (f.running > 0) parts.push(`${f.running} running`);
  if (f.pending > 0) parts.push(`${f.pending} pending`);
  return parts.join(' · ');
}

/** The text a backfill answer leaves in the drawer. */
export function backfillMessage(status: number, body: string): string {
  try {
    const v = JSON.parse(body) as { created?: unknown; error?: unknown };
    if (status === 200 && typeof v.created === 'number')
      // The server counts the window's instants; runs already there are kept, never duplicated.
      return v.created === 0
        ? 'backfill: no instants in that window'
        : `backfill: ${v.created} run(s) in the window (existing runs are kept)`;
    if (typeof v.error === 'string') return `backfill refused: ${v.error}`;
  } catch {
    // not JSON
  }
  return `backfill refused: HTTP ${status}${body ? ` ${body}` : ''}`;
}

/** The DAG drawer's URL hash `#dag/<name>[/<runKey>]` (spec 06 §9.2), or null for any other hash. */
export function parseDagHash(hash: string): { name: string; runKey: string | null } | null {
  const parts = hash.replace(/^#/, '').split('/');
  if (parts[0] !== 'dag' || !parts[1]) return null;
  try {
    return { name: decodeURIComponent(parts[1]), runKey: parts[2] ? decodeURIComponent(parts[2]) : null };
  } catch {
    return null;
  }
}

export function formatDagHash(name: string, runKey: string | null): string {
  return `#dag/${encodeURIComponent(name)}${runKey ? `/${encodeURIComponent(runKey)}` : ''}`;
}
