// The store's tables (spec 03 §13.1) and its plain-named views (DESIGN.md §5), as drizzle-orm
// `sqlite-core` definitions: the one definition of both. `npm run db:generate` turns a change
// here into a new SQL migration under drizzle/ and embeds it into src/store/migrations.ts (what
// the runner applies); the primitives query these tables through drizzle's builder and take
// their row types from here.
//
// Every table is keyed by `ns` (the deployment id): namespaces never see each other's rows.
import { sql } from 'drizzle-orm';
import {
  blob,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  sqliteView,
  text,
} from 'drizzle-orm/sqlite-core';
import { SLOTS_VIEW_SQL } from './slot-view.ts';

/** Per-namespace facts: `storeVersion`, `createdAt`. */
export const storeMeta = sqliteTable(
  'store_meta',
  {
    ns: text('ns').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ns, t.key] })],
);

/** Append-only record streams (`runs/<job>`, `artifacts/<scope>`, ...); newest = highest id. */
export const records = sqliteTable(
  'records',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ns: text('ns').notNull(),
    stream: text('stream').notNull(),
    schemaVersion: text('schema_version').notNull(),
    /** Epoch seconds (float). */
    writtenAt: real('written_at').notNull(),
    /** `<host>#<proc>` of the writing process. */
    writer: text('writer').notNull(),
    /** The record body, JSON text. */
    data: text('data').notNull(),
  },
  (t) => [index('records_ns_stream_id').on(t.ns, t.stream, t.id)],
);

/**
 * Number of v1 records per stream, kept by triggers on `records` (drizzle/0001_stream_counts.sql)
 * so that prune-to-keep after an append costs O(log n) instead of an O(keep) index scan.
 */
export const streamCounts = sqliteTable(
  'stream_counts',
  {
    ns: text('ns').notNull(),
    stream: text('stream').notNull(),
    v1Records: integer('v1_records').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ns, t.stream] })],
);

/** Mutable documents: `kv/<scope>`, `cursor/<scope>`, `idem/<scope>`, `dagrun/<dag>`. */
export const documents = sqliteTable(
  'documents',
  {
    ns: text('ns').notNull(),
    docNs: text('doc_ns').notNull(),
    key: text('key').notNull(),
    schemaVersion: text('schema_version').notNull(),
    /** The document body, JSON text. */
    data: text('data').notNull(),
    updatedAt: real('updated_at').notNull(),
  },
  // The primary key's index also serves "all keys of one doc namespace" (ns, doc_ns prefix).
  (t) => [primaryKey({ columns: [t.ns, t.docNs, t.key] })],
);

/** Content-addressed payloads shared by every artifact scope of a namespace. */
export const blobs = sqliteTable(
  'blobs',
  {
    ns: text('ns').notNull(),
    sha256: text('sha256').notNull(),
    size: integer('size').notNull(),
    data: blob('data', { mode: 'buffer' }).notNull(),
    /** Last put of these bytes (epoch seconds): guards the orphan sweep. */
    touchedAt: real('touched_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ns, t.sha256] }), index('blobs_ns_touched').on(t.ns, t.touchedAt)],
);

/** TTL leases with fences; rows are never deleted on release (the fence's only home). */
export const leases = sqliteTable(
  'leases',
  {
    ns: text('ns').notNull(),
    name: text('name').notNull(),
    holder: text('holder').notNull(),
    fence: integer('fence').notNull(),
    /** Epoch seconds; 0 = released. */
    expiresAt: real('expires_at').notNull(),
    updatedAt: real('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ns, t.name] })],
);

/**
 * The exactly-once backstop of a fleet (DESIGN.md §4 step 3): one row per scheduled fire of a
 * leader-gated job; the node whose insert lands runs the slot, every other node records
 * `claimed-elsewhere`. A plain table with plain columns, so it is its own readable view.
 */
export const fireClaims = sqliteTable(
  'fire_claims',
  {
    ns: text('ns').notNull(),
    job: text('job').notNull(),
    /** The slot instant, ISO-8601 UTC with milliseconds (the same text as `runs.scheduled_at`). */
    scheduledAt: text('scheduled_at').notNull(),
    /** The winner's node name. */
    node: text('node').notNull(),
    /** Epoch seconds (float) of the winning insert. */
    claimedAt: real('claimed_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.ns, t.job, t.scheduledAt] }),
    index('fire_claims_ns_claimed').on(t.ns, t.claimedAt),
  ],
);

export type RecordRow = typeof records.$inferSelect;
export type DocumentRow = typeof documents.$inferSelect;
export type BlobRow = typeof blobs.$inferSelect;
export type LeaseRow = typeof leases.$inferSelect;
export type FireClaimRow = typeof fireClaims.$inferSelect;

// ---- Views: every kind of state under a plain name with plain columns (DESIGN.md §5). ----
// They read the generic tables above; only v1 rows (the only version this build writes).
// Stream and doc-namespace kinds are matched as a range (`>= 'runs/' AND < 'runs0'`, '0' being
// the character after '/') so SQLite uses the primary-key / (ns, stream, id) index, not a scan.

/** A `$.field` of a JSON body column, as a named view column. */
function jsonField<T>(body: typeof records.data | typeof documents.data, field: string, column: string) {
  return sql<T>`json_extract(${body}, ${sql.raw(`'$.${field}'`)})`.as(column);
}

/** `column` starts with `prefix` (ending in '/'), as an index range. */
function startsWith(
  column: typeof records.stream | typeof documents.docNs | typeof leases.name,
  prefix: string,
) {
  const upper = `${prefix.slice(0, -1)}0`;
  return sql`${column} >= ${sql.raw(`'${prefix}'`)} AND ${column} < ${sql.raw(`'${upper}'`)}`;
}

const V1 = sql.raw(`'v1'`);

/** The rest of a name after its kind prefix (`runs/nightly` -> `nightly`). */
function afterPrefix(column: typeof records.stream | typeof documents.docNs, prefix: string, as: string) {
  return sql<string>`substr(${column}, ${sql.raw(String(prefix.length + 1))})`.as(as);
}

/** Every run in the ledger (`runs/<job>`), one row per attempt; `node` is the writing host. */
export const runs = sqliteView('runs').as((qb) =>
  qb
    .select({
      ns: records.ns,
      id: records.id,
      job: afterPrefix(records.stream, 'runs/', 'job'),
      scheduledAt: jsonField<string | null>(records.data, 'scheduled_at', 'scheduled_at'),
      startedAt: jsonField<string | null>(records.data, 'started_at', 'started_at'),
      finishedAt: jsonField<string>(records.data, 'finished_at', 'finished_at'),
      outcome: jsonField<string>(records.data, 'outcome', 'outcome'),
      exitCode: jsonField<number | null>(records.data, 'exit_code', 'exit_code'),
      attempt: jsonField<number | null>(records.data, 'attempt', 'attempt'),
      node: sql<string>`substr(${records.writer}, 1, instr(${records.writer} || '#', '#') - 1)`.as('node'),
      trigger: jsonField<string | null>(records.data, 'trigger', 'trigger'),
      duration: jsonField<number | null>(records.data, 'duration', 'duration'),
      failReason: jsonField<string | null>(records.data, 'fail_reason', 'fail_reason'),
      runId: jsonField<string | null>(records.data, 'run_id', 'run_id'),
    })
    .from(records)
    .where(sql`${startsWith(records.stream, 'runs/')} AND ${records.schemaVersion} = ${V1}`),
);

/**
 * Every scheduled slot the fleet's ledger knows, one row per (job, scheduled_at), carrying the
 * same row GET /jobs/{name}/slots picks: the most informative ledger row (a run over a Forbid
 * skip over another node's claimed-elsewhere; the newest among equals, so the last retry
 * attempt). `outcome` is the slot fate (`ran`, `failed`, `skipped-overlap`, `claimed-elsewhere`,
 * `missed`, `caught-up`...), `ledger_outcome` the raw ledger text. SQLite takes the bare columns
 * from the row holding the max. Slots nobody recorded (`unaccounted`) are not rows: finding them
 * needs the schedule (the route and `cronstable slots` compute them). EveryNode jobs have a slot
 * per node: query `runs` grouped by node for them. The SQL is generated from the table of slot
 * outcomes (src/store/slot-view.ts), the one `fateOf` reads.
 */
export const slots = sqliteView('slots', {
  ns: text('ns').notNull(),
  job: text('job').notNull(),
  scheduledAt: text('scheduled_at').notNull(),
  outcome: text('outcome').notNull(),
  ledgerOutcome: text('ledger_outcome').notNull(),
  node: text('node').notNull(),
  runId: text('run_id'),
  reason: text('reason'),
  finishedAt: text('finished_at'),
  attempts: integer('attempts').notNull(),
  records: integer('records').notNull(),
  id: integer('id').notNull(),
}).as(sql.raw(SLOTS_VIEW_SQL));

/** Job KV entries (`kv/<scope>` documents). */
export const kv = sqliteView('kv').as((qb) =>
  qb
    .select({
      ns: documents.ns,
      scope: afterPrefix(documents.docNs, 'kv/', 'scope'),
      key: documents.key,
      value: jsonField<unknown>(documents.data, 'value', 'value'),
      updatedAt: documents.updatedAt,
    })
    .from(documents)
    .where(sql`${startsWith(documents.docNs, 'kv/')} AND ${documents.schemaVersion} = ${V1}`),
);

/** Cursors (`cursor/<scope>` documents). */
export const cursors = sqliteView('cursors').as((qb) =>
  qb
    .select({
      ns: documents.ns,
      scope: afterPrefix(documents.docNs, 'cursor/', 'scope'),
      name: sql<string>`${documents.key}`.as('name'),
      value: jsonField<unknown>(documents.data, 'value', 'value'),
      updatedAt: documents.updatedAt,
    })
    .from(documents)
    .where(sql`${startsWith(documents.docNs, 'cursor/')} AND ${documents.schemaVersion} = ${V1}`),
);

/** Idempotency claims (`idem/<scope>` documents); `expires_at` NULL = claimed for good. */
export const idempotencyKeys = sqliteView('idempotency_keys').as((qb) =>
  qb
    .select({
      ns: documents.ns,
      scope: afterPrefix(documents.docNs, 'idem/', 'scope'),
      key: documents.key,
      claimedAt: jsonField<number>(documents.data, 'claimedAt', 'claimed_at'),
      expiresAt: jsonField<number | null>(documents.data, 'expiresAt', 'expires_at'),
    })
    .from(documents)
    .where(sql`${startsWith(documents.docNs, 'idem/')} AND ${documents.schemaVersion} = ${V1}`),
);

// `lock/<scope>/<name>#<permit>`: `rest` is what follows `lock/<scope>/`; the permit is its
// trailing digits (rtrim strips them, so the name ends one character before).
const lockRest = sql`substr(${leases.name}, instr(substr(${leases.name}, 6), '/') + 6)`;

/** Job locks and semaphore permits (`lock/...` leases); released ones have `expires_at = 0`. */
export const locks = sqliteView('locks').as((qb) =>
  qb
    .select({
      ns: leases.ns,
      scope: sql<string>`substr(${leases.name}, 6, instr(substr(${leases.name}, 6), '/') - 1)`.as('scope'),
      name: sql<string>`substr(${lockRest}, 1, length(rtrim(${lockRest}, '0123456789')) - 1)`.as('name'),
      permit:
        sql<number>`CAST(substr(${lockRest}, length(rtrim(${lockRest}, '0123456789')) + 1) AS INTEGER)`.as(
          'permit',
        ),
      holder: leases.holder,
      fence: leases.fence,
      expiresAt: leases.expiresAt,
      updatedAt: leases.updatedAt,
    })
    .from(leases)
    .where(startsWith(leases.name, 'lock/')),
);

/** The newest version of every artifact (`artifacts/<scope>` records); bytes are in `blobs`. */
export const artifacts = sqliteView('artifacts').as((qb) =>
  qb
    .select({
      ns: records.ns,
      scope: afterPrefix(records.stream, 'artifacts/', 'scope'),
      name: jsonField<string>(records.data, 'name', 'name'),
      sha256: jsonField<string>(records.data, 'sha256', 'sha256'),
      size: jsonField<number>(records.data, 'size', 'size'),
      putAt: jsonField<number>(records.data, 'at', 'put_at'),
      versions: sql<number>`count(*)`.as('versions'),
      id: sql<number>`max(${records.id})`.as('id'),
    })
    .from(records)
    .where(sql`${startsWith(records.stream, 'artifacts/')} AND ${records.schemaVersion} = ${V1}`)
    .groupBy(records.ns, records.stream, sql`json_extract(${records.data}, '$.name')`),
);

/**
 * Each job's durable retry ladder at its newest entry (`retries/<job>`): `pending` = a retry
 * is armed for `not_before`, `settled` = the ladder ended (`reason`), `handoff` = moving nodes.
 */
export const retries = sqliteView('retries').as((qb) =>
  qb
    .select({
      ns: records.ns,
      job: afterPrefix(records.stream, 'retries/', 'job'),
      state: jsonField<string>(records.data, 'kind', 'state'),
      attempt: jsonField<number | null>(records.data, 'attempt', 'attempt'),
      notBefore: jsonField<string | null>(records.data, 'notBefore', 'not_before'),
      reason: jsonField<string | null>(records.data, 'reason', 'reason'),
      node: jsonField<string | null>(records.data, 'host', 'node'),
      at: jsonField<string>(records.data, 'at', 'at'),
      id: sql<number>`max(${records.id})`.as('id'),
    })
    .from(records)
    .where(sql`${startsWith(records.stream, 'retries/')} AND ${records.schemaVersion} = ${V1}`)
    .groupBy(records.ns, records.stream),
);

/**
 * DAG runs (spec 04 §4.1), one row per run: the header of the run document as plain columns a
 * person can query. `version` is the compare-and-set counter every write checks and bumps.
 */
export const dagRuns = sqliteTable(
  'dag_runs',
  {
    ns: text('ns').notNull(),
    dag: text('dag').notNull(),
    runKey: text('run_key').notNull(),
    runId: text('run_id').notNull(),
    /** `YYYY-MM-DDTHH:MM:SS+00:00`, null for manual runs. */
    logicalDate: text('logical_date'),
    kind: text('kind').notNull(),
    state: text('state').notNull(),
    createdAt: real('created_at').notNull(),
    updatedAt: real('updated_at').notNull(),
    /** `{taskId: {items, expandedAt}}`, JSON text: written once per mapped task. */
    mapped: text('mapped').notNull(),
    version: integer('version').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.ns, t.dag, t.runKey] }),
    index('dag_runs_ns_dag_created').on(t.ns, t.dag, t.createdAt),
    index('dag_runs_ns_state').on(t.ns, t.state),
  ],
);

/** One row per task instance of a run (spec 04 §4.3): `task_key` is `id` or `id#i`. */
export const dagTasks = sqliteTable(
  'dag_tasks',
  {
    ns: text('ns').notNull(),
    dag: text('dag').notNull(),
    runKey: text('run_key').notNull(),
    taskKey: text('task_key').notNull(),
    taskId: text('task_id').notNull(),
    mapIndex: integer('map_index'),
    /** Mapped instances: the item as JSON text. */
    mapItem: text('map_item'),
    /** 1 on a mapped task's placeholder. */
    mapped: integer('mapped').notNull(),
    state: text('state').notNull(),
    attempt: integer('attempt').notNull(),
    proc: text('proc'),
    pid: integer('pid'),
    host: text('host'),
    startedAt: real('started_at'),
    finishedAt: real('finished_at'),
    exitCode: integer('exit_code'),
    failReason: text('fail_reason'),
    /** JSON text or null. */
    resources: text('resources'),
    updatedAt: real('updated_at').notNull(),
    nextRetryAt: real('next_retry_at'),
    /** Sensors only (null otherwise). */
    pokeCount: integer('poke_count'),
    nextPokeAt: real('next_poke_at'),
    firstPokeAt: real('first_poke_at'),
    /** Approvals: 1 while parked; the decision once made (null before). */
    awaitingApproval: integer('awaiting_approval').notNull(),
    /** 1 on an approval task (its `approval` field exists, null until decided). */
    isApproval: integer('is_approval').notNull(),
    decision: text('decision'),
    decidedBy: text('decided_by'),
    decidedAt: real('decided_at'),
  },
  (t) => [primaryKey({ columns: [t.ns, t.dag, t.runKey, t.taskKey] })],
);

/**
 * Every task output (XCom, spec 04 §6.1) at its newest version: the `artifacts/dagxcom/<dag>/<runId>`
 * records of each run, split into the task key and the key a task pushed (`<taskkey>/<key>`).
 */
export const xcom = sqliteView('xcom', {
  ns: text('ns').notNull(),
  dag: text('dag').notNull(),
  runKey: text('run_key').notNull(),
  runId: text('run_id').notNull(),
  taskKey: text('task_key').notNull(),
  key: text('key').notNull(),
  sha256: text('sha256').notNull(),
  size: integer('size').notNull(),
  putAt: real('put_at').notNull(),
  versions: integer('versions').notNull(),
  id: integer('id').notNull(),
}).as(
  sql`select r."ns", d."dag", d."run_key", d."run_id", substr(json_extract(r."data", '$.name'), 1, instr(json_extract(r."data", '$.name'), '/') - 1) as "task_key", substr(json_extract(r."data", '$.name'), instr(json_extract(r."data", '$.name'), '/') + 1) as "key", json_extract(r."data", '$.sha256') as "sha256", json_extract(r."data", '$.size') as "size", json_extract(r."data", '$.at') as "put_at", count(*) as "versions", max(r."id") as "id" from "dag_runs" d join "records" r on r."ns" = d."ns" and r."stream" = 'artifacts/dagxcom/' || d."dag" || '/' || d."run_id" and r."schema_version" = 'v1' group by r."ns", r."stream", json_extract(r."data", '$.name')`,
);

export type DagRunRow = typeof dagRuns.$inferSelect;
export type DagTaskRow = typeof dagTasks.$inferSelect;
