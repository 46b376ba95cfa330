// The one module that knows which runtime we are on (DESIGN.md §2). It opens a SQLite file
// with better-sqlite3 (Node), bun:sqlite (Bun) or node:sqlite (Deno, or Node when
// better-sqlite3 is missing) and hands out the same small synchronous interface, plus a drizzle
// database on that same connection (drizzle's better-sqlite3 and bun-sqlite sessions; node:sqlite
// through a better-sqlite3-shaped shim, drizzle having no node:sqlite driver). Drivers are
// loaded lazily so `cronstable --version` never touches a native module: the drizzle sessions
// are built on the connection we opened (their `drizzle()` entry points import the native
// module at load time, which would break the Node bundle on `bun:sqlite` and vice versa).
import { createRequire } from 'node:module';
import { BetterSQLiteSession } from 'drizzle-orm/better-sqlite3/session';
import { SQLiteBunSession } from 'drizzle-orm/bun-sqlite/session';
import { BaseSQLiteDatabase, SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';

/** What a SQL parameter may be (positional `?` only, so every driver binds the same way). */
export type SqlValue = null | number | bigint | string | Uint8Array;
export type Row = Record<string, unknown>;

/** What running a write statement reports (drizzle's `.run()` returns the driver's own). */
export interface StatementResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface Statement {
  run(...params: SqlValue[]): StatementResult;
  get<T = Row>(...params: SqlValue[]): T | undefined;
  all<T = Row>(...params: SqlValue[]): T[];
}

/** A synchronous drizzle database on the store's connection (every runtime alike). */
export type Orm = BaseSQLiteDatabase<'sync', StatementResult>;

export type Runtime = 'better-sqlite3' | 'bun:sqlite' | 'node:sqlite';

export interface Database {
  readonly runtime: Runtime;
  readonly file: string;
  /** Library and SQLite versions, for `state check`. */
  readonly version: string;
  /** Raw SQL: pragmas, migrations, admin work drizzle's builder cannot express. */
  exec(sql: string): void;
  /** Prepared statements are cached by their SQL text. */
  prepare(sql: string): Statement;
  /** drizzle on this connection; its queries share the transactions of `transaction`. */
  readonly orm: Orm;
  /**
   * The query `build` makes (a drizzle `.prepare()`d statement), built once per connection:
   * the function itself is the cache key, so declare builders at module level.
   */
  prepared<T>(build: (orm: Orm) => T): T;
  /**
   * Runs fn inside `BEGIN IMMEDIATE … COMMIT` (ROLLBACK on throw). Nested calls become
   * savepoints, so an op keeps its own atomicity inside a group commit.
   */
  transaction<T>(fn: () => T): T;
  readonly inTransaction: boolean;
  /** A consistent copy of the whole database into `dest` (online; the source stays usable). */
  backup(dest: string): Promise<void>;
  close(): void;
}

export interface OpenOptions {
  /** Milliseconds SQLite waits on a lock before SQLITE_BUSY. */
  busyTimeoutMs: number;
  readonly?: boolean;
}

/** The per-runtime part: everything else (cache, transactions) is shared. */
interface RawDriver {
  runtime: Runtime;
  version: string;
  exec(sql: string): void;
  prepare(sql: string): Statement;
  orm: Orm;
  backup(dest: string): Promise<void>;
  close(): void;
}

type OrmSession = ConstructorParameters<typeof BaseSQLiteDatabase<'sync', StatementResult>>[2];

/** A drizzle database over the session a runtime provides. */
function makeOrm(session: (dialect: SQLiteSyncDialect) => unknown): Orm {
  const dialect = new SQLiteSyncDialect();
  return new BaseSQLiteDatabase('sync', dialect, session(dialect) as OrmSession, undefined);
}

/** True when an error is SQLite's "database is locked/busy" (retryable). */
export function isBusyError(e: unknown): boolean {
  const err = e as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  if (!err) return false;
  if (
    typeof err.code === 'string' &&
    (err.code.startsWith('SQLITE_BUSY') || err.code.startsWith('SQLITE_LOCKED'))
  )
    return true;
  if (typeof err.errcode === 'number' && ((err.errcode & 0xff) === 5 || (err.errcode & 0xff) === 6))
    return true;
  return typeof err.message === 'string' && /database (table )?is (locked|busy)/.test(err.message);
}

function quoteSqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

class SqliteDatabase implements Database {
  private readonly cache = new Map<string, Statement>();
  private readonly queries = new Map<(orm: Orm) => unknown, unknown>();
  private depth = 0;

  constructor(
    private readonly raw: RawDriver,
    readonly file: string,
  ) {}

  get runtime(): Runtime {
    return this.raw.runtime;
  }
  get version(): string {
    return this.raw.version;
  }
  get inTransaction(): boolean {
    return this.depth > 0;
  }

  get orm(): Orm {
    return this.raw.orm;
  }

  exec(sql: string): void {
    this.raw.exec(sql);
  }

  prepared<T>(build: (orm: Orm) => T): T {
    let query = this.queries.get(build) as T | undefined;
    if (query === undefined) {
      query = build(this.raw.orm);
      this.queries.set(build, query);
    }
    return query;
  }

  prepare(sql: string): Statement {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.raw.prepare(sql);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }

  transaction<T>(fn: () => T): T {
    if (this.depth > 0) {
      const name = `sp${this.depth}`;
      this.raw.exec(`SAVEPOINT ${name}`);
      this.depth++;
      try {
        const result = fn();
        this.raw.exec(`RELEASE ${name}`);
        return result;
      } catch (e) {
        try {
          this.raw.exec(`ROLLBACK TO ${name}`);
          this.raw.exec(`RELEASE ${name}`);
        } catch {
          // The enclosing transaction is gone (SQLite rolled it back); the outer level reports.
        }
        throw e;
      } finally {
        this.depth--;
      }
    }
    // Our own BEGIN IMMEDIATE rather than drizzle's transaction(): that one hands over to each
    // driver's helper (deferred by default, different nesting per driver), and group commit
    // needs one behaviour on all three.
    this.raw.exec('BEGIN IMMEDIATE');
    this.depth = 1;
    try {
      const result = fn();
      this.raw.exec('COMMIT');
      return result;
    } catch (e) {
      try {
        this.raw.exec('ROLLBACK');
      } catch {
        // Already rolled back by SQLite (e.g. after an I/O error).
      }
      throw e;
    } finally {
      this.depth = 0;
    }
  }

  backup(dest: string): Promise<void> {
    return this.raw.backup(dest);
  }

  close(): void {
    this.cache.clear();
    this.queries.clear();
    this.raw.close();
  }
}

// ---- better-sqlite3 (Node) ------------------------------------------------------------------

interface BetterStatement {
  reader: boolean;
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
interface BetterDatabase {
  exec(sql: string): void;
  prepare(sql: string): BetterStatement;
  backup(dest: string): Promise<unknown>;
  close(): void;
}
type BetterConstructor = new (file: string, opts: { timeout: number; readonly?: boolean }) => BetterDatabase;

/** better-sqlite3 binds Buffers, not bare Uint8Arrays. */
function bindBetter(params: SqlValue[]): unknown[] {
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (p instanceof Uint8Array && !Buffer.isBuffer(p)) {
      const copy = params.slice() as unknown[];
      for (let j = i; j < copy.length; j++) {
        const q = copy[j];
        if (q instanceof Uint8Array && !Buffer.isBuffer(q))
          copy[j] = Buffer.from(q.buffer, q.byteOffset, q.byteLength);
      }
      return copy;
    }
  }
  return params;
}

function openBetter(file: string, opts: OpenOptions): RawDriver {
  const require = createRequire(import.meta.url);
  const Better = require('better-sqlite3') as BetterConstructor;
  const pkg = require('better-sqlite3/package.json') as { version: string };
  const db = new Better(file, { timeout: opts.busyTimeoutMs, readonly: opts.readonly ?? false });
  const sqliteVersion = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  return {
    runtime: 'better-sqlite3',
    version: `better-sqlite3 ${pkg.version}, SQLite ${sqliteVersion}`,
    exec: (sql) => db.exec(sql),
    prepare(sql) {
      const s = db.prepare(sql);
      return {
        run: (...p) => {
          const r = s.run(...bindBetter(p));
          return { changes: r.changes, lastInsertRowid: Number(r.lastInsertRowid) };
        },
        get: <T>(...p: SqlValue[]) => s.get(...bindBetter(p)) as T | undefined,
        all: <T>(...p: SqlValue[]) => s.all(...bindBetter(p)) as T[],
      };
    },
    orm: makeOrm((dialect) => new BetterSQLiteSession(db as never, dialect, undefined)),
    backup: async (dest) => {
      await db.backup(dest);
    },
    close: () => db.close(),
  };
}

// ---- bun:sqlite (Bun) -----------------------------------------------------------------------

interface BunStatement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint } | undefined;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
interface BunDatabase {
  exec(sql: string): void;
  prepare(sql: string): BunStatement;
  close(): void;
}
type BunConstructor = new (file: string, opts: { create: boolean; readonly?: boolean }) => BunDatabase;

/** `VACUUM INTO` is a consistent snapshot on every driver (SQLite >= 3.27). */
function vacuumInto(exec: (sql: string) => void, dest: string): Promise<void> {
  exec(`VACUUM INTO ${quoteSqlString(dest)}`);
  return Promise.resolve();
}

async function openBun(file: string, opts: OpenOptions): Promise<RawDriver> {
  const mod = (await importRuntimeModule('bun:sqlite')) as { Database: BunConstructor };
  const db = new mod.Database(file, { create: !opts.readonly, readonly: opts.readonly ?? false });
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs))}`);
  const sqliteVersion = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  return {
    runtime: 'bun:sqlite',
    version: `bun:sqlite (Bun ${process.versions.bun}), SQLite ${sqliteVersion}`,
    exec: (sql) => db.exec(sql),
    prepare(sql) {
      const s = db.prepare(sql);
      return {
        run: (...p) => {
          const r = s.run(...p);
          return { changes: r?.changes ?? 0, lastInsertRowid: Number(r?.lastInsertRowid ?? 0) };
        },
        get: <T>(...p: SqlValue[]) => (s.get(...p) ?? undefined) as T | undefined,
        all: <T>(...p: SqlValue[]) => s.all(...p) as T[],
      };
    },
    orm: makeOrm((dialect) => new SQLiteBunSession(db as never, dialect, undefined)),
    backup: (dest) => vacuumInto((sql) => db.exec(sql), dest),
    close: () => db.close(),
  };
}

// ---- node:sqlite (Deno, or Node without better-sqlite3) -------------------------------------

interface NodeSqliteStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
interface NodeSqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): NodeSqliteStatement;
  close(): void;
}
type NodeSqliteConstructor = new (file: string, opts?: { readOnly?: boolean }) => NodeSqliteDatabase;

/** node:sqlite returns null-prototype rows; copy them into plain objects. */
function plainRow(row: unknown): unknown {
  return row && typeof row === 'object' ? { ...(row as Row) } : row;
}

/** A row as the array drizzle's array mode wants (our queries never repeat a column name). */
function rowValues(row: unknown): unknown[] | undefined {
  return row && typeof row === 'object' ? Object.values(row) : undefined;
}

/**
 * The slice of better-sqlite3's API that drizzle's better-sqlite3 session uses (prepare, run,
 * get, all, raw), over node:sqlite, so the same drizzle queries serve Deno too.
 */
function betterShaped(db: NodeSqliteDatabase): unknown {
  return {
    exec: (sql: string) => db.exec(sql),
    prepare(sql: string) {
      const s = db.prepare(sql);
      const raw = {
        get: (...p: unknown[]) => rowValues(s.get(...p)),
        all: (...p: unknown[]) => s.all(...p).map((r) => rowValues(r)),
      };
      return {
        run: (...p: unknown[]) => {
          const r = s.run(...p);
          return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
        },
        get: (...p: unknown[]) => plainRow(s.get(...p)) ?? undefined,
        all: (...p: unknown[]) => s.all(...p).map(plainRow),
        raw: () => raw,
      };
    },
  };
}

async function openNodeSqlite(file: string, opts: OpenOptions): Promise<RawDriver> {
  const mod = (await importRuntimeModule('node:sqlite')) as { DatabaseSync: NodeSqliteConstructor };
  const db = new mod.DatabaseSync(file, { readOnly: opts.readonly ?? false });
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs))}`);
  const sqliteVersion = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  return {
    runtime: 'node:sqlite',
    version: `node:sqlite, SQLite ${sqliteVersion}`,
    exec: (sql) => db.exec(sql),
    prepare(sql) {
      const s = db.prepare(sql);
      return {
        run: (...p) => {
          const r = s.run(...p);
          return { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
        },
        get: <T>(...p: SqlValue[]) => (plainRow(s.get(...p)) ?? undefined) as T | undefined,
        all: <T>(...p: SqlValue[]) => s.all(...p).map(plainRow) as T[],
      };
    },
    orm: makeOrm((dialect) => new BetterSQLiteSession(betterShaped(db) as never, dialect, undefined)),
    backup: (dest) => vacuumInto((sql) => db.exec(sql), dest),
    close: () => db.close(),
  };
}

/** A non-literal import, so bundlers and the type checker leave runtime built-ins alone. */
function importRuntimeModule(specifier: string): Promise<unknown> {
  return import(specifier);
}

function isDeno(): boolean {
  return typeof (globalThis as { Deno?: unknown }).Deno !== 'undefined';
}

/** Opens (creating if needed) the SQLite file with the driver of the current runtime. */
export async function openDatabase(file: string, opts: OpenOptions): Promise<Database> {
  let raw: RawDriver;
  if (process.versions.bun) raw = await openBun(file, opts);
  else if (isDeno()) raw = await openNodeSqlite(file, opts);
  else {
    try {
      raw = openBetter(file, opts);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_DLOPEN_FAILED') throw e;
      raw = await openNodeSqlite(file, opts);
    }
  }
  return new SqliteDatabase(raw, file);
}
