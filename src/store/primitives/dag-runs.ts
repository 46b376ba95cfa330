// DAG run documents (spec 04 §4) as rows a person can query: the header in `dag_runs`, one
// `dag_tasks` row per task instance. A write is a compare-and-set on the run's `version`: the
// caller read the run, applied a pure transform and writes back only the entries it touched, in
// one tiny BEGIN IMMEDIATE transaction that lands only if nobody wrote the run in between.
import type { SqlValue } from '../driver.ts';
import {
  type DagRunStats,
  type DagRunSummary,
  type DagRunWrite,
  type StoredDagRun,
  type StoredDagTask,
  StoreRequestError,
  type VersionedDagRun,
} from '../types.ts';
import { type Ctx, requireName } from './common.ts';
import { deleteStream } from './records.ts';

const TASK_COLUMNS = [
  'task_key',
  'task_id',
  'map_index',
  'map_item',
  'mapped',
  'state',
  'attempt',
  'proc',
  'pid',
  'host',
  'started_at',
  'finished_at',
  'exit_code',
  'fail_reason',
  'resources',
  'updated_at',
  'next_retry_at',
  'poke_count',
  'next_poke_at',
  'first_poke_at',
  'awaiting_approval',
  'is_approval',
  'decision',
  'decided_by',
  'decided_at',
] as const;

const UPSERT_TASK = `INSERT INTO dag_tasks (ns, dag, run_key, ${TASK_COLUMNS.join(', ')}) VALUES (?, ?, ?, ${TASK_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (ns, dag, run_key, task_key) DO UPDATE SET ${TASK_COLUMNS.slice(
  1,
)
  .map((c) => `${c} = excluded.${c}`)
  .join(', ')}`;

const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));

function taskValues(key: string, t: StoredDagTask): SqlValue[] {
  const a = t.approval;
  return [
    key,
    t.id,
    t.mapIndex,
    t.mapIndex === null ? null : json(t.mapItem ?? null),
    t.mapped ? 1 : 0,
    t.state,
    t.attempt,
    t.proc,
    t.pid,
    t.host,
    t.startedAt,
    t.finishedAt,
    t.exitCode,
    t.failReason,
    t.resources === null || t.resources === undefined ? null : json(t.resources),
    t.updatedAt,
    t.nextRetryAt,
    t.pokeCount === undefined ? null : t.pokeCount,
    t.pokeCount === undefined ? null : (t.nextPokeAt ?? null),
    t.pokeCount === undefined ? null : (t.firstPokeAt ?? null),
    t.awaitingApproval ? 1 : 0,
    a === undefined ? 0 : 1,
    a?.decision ?? null,
    a?.by ?? null,
    a?.at ?? null,
  ];
}

interface TaskRowOut {
  task_key: string;
  task_id: string;
  map_index: number | null;
  map_item: string | null;
  mapped: number;
  state: string;
  attempt: number;
  proc: string | null;
  pid: number | null;
  host: string | null;
  started_at: number | null;
  finished_at: number | null;
  exit_code: number | null;
  fail_reason: string | null;
  resources: string | null;
  updated_at: number;
  next_retry_at: number | null;
  poke_count: number | null;
  next_poke_at: number | null;
  first_poke_at: number | null;
  awaiting_approval: number;
  is_approval: number;
  decision: string | null;
  decided_by: string | null;
  decided_at: number | null;
}

function taskOf(r: TaskRowOut): StoredDagTask {
  const t: StoredDagTask = {
    id: r.task_id,
    mapIndex: r.map_index,
    state: r.state,
    attempt: r.attempt,
    proc: r.proc,
    pid: r.pid,
    host: r.host,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    exitCode: r.exit_code,
    failReason: r.fail_reason,
    resources: r.resources === null ? null : JSON.parse(r.resources),
    updatedAt: r.updated_at,
    nextRetryAt: r.next_retry_at,
  };
  if (r.map_index !== null) t.mapItem = r.map_item === null ? null : JSON.parse(r.map_item);
  if (r.mapped) t.mapped = true;
  if (r.poke_count !== null) {
    t.pokeCount = r.poke_count;
    t.nextPokeAt = r.next_poke_at;
    t.firstPokeAt = r.first_poke_at;
  }
  if (r.is_approval)
    t.approval =
      r.decision === null ? null : { decision: r.decision, by: r.decided_by ?? '', at: r.decided_at ?? 0 };
  if (r.awaiting_approval) t.awaitingApproval = true;
  return t;
}

interface RunRowOut {
  dag: string;
  run_key: string;
  run_id: string;
  logical_date: string | null;
  kind: string;
  state: string;
  created_at: number;
  updated_at: number;
  mapped: string;
  version: number;
}

function requireRun(run: StoredDagRun): void {
  requireName(run?.dag, 'dag');
  requireName(run.runKey, 'run key');
  requireName(run.runId, 'run id');
}

function writeTasks(c: Ctx, dag: string, runKey: string, tasks: Record<string, StoredDagTask>): void {
  const stmt = c.db.prepare(UPSERT_TASK);
  for (const key in tasks) stmt.run(c.ns, dag, runKey, ...taskValues(key, tasks[key]!));
}

/** Create-if-absent by `(dag, runKey)` (§4.2): `created` false means another creator won. */
export function dagRunCreate(c: Ctx, run: StoredDagRun): { created: boolean } {
  requireRun(run);
  return c.db.transaction(() => {
    const inserted = c.db
      .prepare(
        'INSERT INTO dag_runs (ns, dag, run_key, run_id, logical_date, kind, state, created_at, updated_at, mapped, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1) ON CONFLICT DO NOTHING',
      )
      .run(
        c.ns,
        run.dag,
        run.runKey,
        run.runId,
        run.logicalDate,
        run.kind,
        run.state,
        run.createdAt,
        run.updatedAt,
        JSON.stringify(run.mapped ?? {}),
      ).changes;
    if (inserted !== 1) return { created: false };
    writeTasks(c, run.dag, run.runKey, run.tasks);
    return { created: true };
  });
}

/** The whole document and its version, read in one transaction (a consistent snapshot). */
export function dagRunGet(c: Ctx, dag: string, runKey: string): VersionedDagRun | null {
  return c.db.transaction(() => {
    const h = c.db
      .prepare('SELECT * FROM dag_runs WHERE ns = ? AND dag = ? AND run_key = ?')
      .get<RunRowOut>(c.ns, dag, runKey);
    if (!h) return null;
    const rows = c.db
      .prepare(
        `SELECT ${TASK_COLUMNS.join(', ')} FROM dag_tasks WHERE ns = ? AND dag = ? AND run_key = ? ORDER BY task_id, map_index`,
      )
      .all<TaskRowOut>(c.ns, dag, runKey);
    const tasks: Record<string, StoredDagTask> = {};
    for (const r of rows) tasks[r.task_key] = taskOf(r);
    return {
      version: h.version,
      run: {
        dag: h.dag,
        runKey: h.run_key,
        runId: h.run_id,
        logicalDate: h.logical_date,
        kind: h.kind,
        state: h.state,
        createdAt: h.created_at,
        updatedAt: h.updated_at,
        tasks,
        mapped: JSON.parse(h.mapped),
      },
    };
  });
}

/** The run's current version (null: no such run): a writer with this version cached skips the read. */
export function dagRunVersion(c: Ctx, dag: string, runKey: string): number | null {
  return (
    c.db
      .prepare('SELECT version FROM dag_runs WHERE ns = ? AND dag = ? AND run_key = ?')
      .get<{ version: number }>(c.ns, dag, runKey)?.version ?? null
  );
}

/** The compare-and-set: `{ok: false}` when another writer got there first (re-read and retry). */
export function dagRunWrite(c: Ctx, w: DagRunWrite): { ok: boolean; version: number } {
  requireName(w?.dag, 'dag');
  requireName(w.runKey, 'run key');
  if (!Number.isInteger(w.version)) throw new StoreRequestError(400, 'version must be an integer');
  return c.db.transaction(() => {
    const changed = c.db
      .prepare(
        'UPDATE dag_runs SET state = ?, updated_at = ?, mapped = ?, version = version + 1 WHERE ns = ? AND dag = ? AND run_key = ? AND version = ?',
      )
      .run(w.state, w.updatedAt, JSON.stringify(w.mapped), c.ns, w.dag, w.runKey, w.version).changes;
    if (changed !== 1) return { ok: false, version: w.version };
    writeTasks(c, w.dag, w.runKey, w.tasks);
    return { ok: true, version: w.version + 1 };
  });
}

const SUMMARY_SELECT = `SELECT r.run_key, r.run_id, r.state, r.kind, r.logical_date, r.created_at, r.updated_at,
  (SELECT json_group_object(state, n) FROM (SELECT state, count(*) AS n FROM dag_tasks t
     WHERE t.ns = r.ns AND t.dag = r.dag AND t.run_key = r.run_key GROUP BY state)) AS task_states
  FROM dag_runs r`;

interface SummaryRow {
  run_key: string;
  run_id: string;
  state: string;
  kind: string;
  logical_date: string | null;
  created_at: number;
  updated_at: number;
  task_states: string | null;
}

const summaryOf = (r: SummaryRow): DagRunSummary => ({
  runKey: r.run_key,
  runId: r.run_id,
  state: r.state,
  kind: r.kind,
  logicalDate: r.logical_date,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  taskStates: r.task_states ? JSON.parse(r.task_states) : {},
});

/** A DAG's runs, newest `createdAt` first. */
export function dagRunList(c: Ctx, dag: string, limit: number): DagRunSummary[] {
  const n = Math.max(1, Math.min(100_000, Math.floor(limit)));
  return c.db
    .prepare(
      `${SUMMARY_SELECT} WHERE r.ns = ? AND r.dag = ? ORDER BY r.created_at DESC, r.run_key DESC LIMIT ?`,
    )
    .all<SummaryRow>(c.ns, dag, n)
    .map(summaryOf);
}

/** Every non-terminal run of the namespace (the adoption scan, §7.3). */
export function dagRunsActive(c: Ctx): { dag: string; runKey: string }[] {
  return c.db
    .prepare("SELECT dag, run_key FROM dag_runs WHERE ns = ? AND state = 'running' ORDER BY created_at")
    .all<{ dag: string; run_key: string }>(c.ns)
    .map((r) => ({ dag: r.dag, runKey: r.run_key }));
}

/** Per-DAG rollups for `GET /dags`: run counts by state, total, newest run. */
export function dagRunStats(c: Ctx, dag: string): DagRunStats {
  return c.db.transaction(() => {
    const rows = c.db
      .prepare('SELECT state, count(*) AS n FROM dag_runs WHERE ns = ? AND dag = ? GROUP BY state')
      .all<{ state: string; n: number }>(c.ns, dag);
    const counts: Record<string, number> = {};
    let total = 0;
    for (const r of rows) {
      counts[r.state] = r.n;
      total += r.n;
    }
    const latest = dagRunList(c, dag, 1)[0] ?? null;
    const wm = c.db
      .prepare('SELECT max(logical_date) AS w FROM dag_runs WHERE ns = ? AND dag = ?')
      .get<{ w: string | null }>(c.ns, dag);
    return { counts, total, latest, watermark: wm?.w ?? null };
  });
}

/** The XCom scope of a run (§6.1). */
export function xcomScopeOf(dag: string, runId: string): string {
  return `dagxcom/${dag}/${runId}`;
}

function deleteRun(c: Ctx, dag: string, runKey: string, runId: string): void {
  c.db.prepare('DELETE FROM dag_runs WHERE ns = ? AND dag = ? AND run_key = ?').run(c.ns, dag, runKey);
  c.db.prepare('DELETE FROM dag_tasks WHERE ns = ? AND dag = ? AND run_key = ?').run(c.ns, dag, runKey);
  deleteStream(c, `artifacts/${xcomScopeOf(dag, runId)}`);
}

/**
 * Retention (§10): deletes the DAG's oldest terminal runs beyond the newest `keep` terminal ones,
 * document first, then its XCom records. Active runs are never touched. Returns how many went.
 */
export function dagRunPrune(c: Ctx, dag: string, keep: number): number {
  if (!Number.isInteger(keep) || keep < 1) throw new StoreRequestError(400, 'keep must be an integer >= 1');
  return c.db.transaction(() => {
    const old = c.db
      .prepare(
        "SELECT run_key, run_id FROM dag_runs WHERE ns = ? AND dag = ? AND state <> 'running' ORDER BY created_at DESC, run_key DESC LIMIT -1 OFFSET ?",
      )
      .all<{ run_key: string; run_id: string }>(c.ns, dag, keep);
    for (const r of old) deleteRun(c, dag, r.run_key, r.run_id);
    return old.length;
  });
}

/**
 * Removed DAGs (§10): terminal runs of DAGs not in `configured` whose `updated_at` is older than
 * `cutoff` (epoch s) go, with their XCom. Active runs stay, so re-adding the DAG resumes them.
 */
export function dagRunPruneRemoved(c: Ctx, configured: string[], cutoff: number): number {
  return c.db.transaction(() => {
    const rows = c.db
      .prepare(
        "SELECT dag, run_key, run_id FROM dag_runs WHERE ns = ? AND state <> 'running' AND updated_at < ? AND dag NOT IN (SELECT value FROM json_each(?))",
      )
      .all<{ dag: string; run_key: string; run_id: string }>(c.ns, cutoff, JSON.stringify(configured));
    for (const r of rows) deleteRun(c, r.dag, r.run_key, r.run_id);
    return rows.length;
  });
}
