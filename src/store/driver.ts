// The one module that knows which runtime we are on (DESIGN.md §2). It opens a SQLite file
// with better-sqlite3 (Node), bun:sqlite (Bun) or node:sqlite (Deno, or Node when
// better-sqlite3 is missing) and hands out the same small synchronous interface. Drivers are
// loaded lazily so `cronstable --version` never touches a native module.
import { createRequire } from 'node:module';

/** What a SQL parameter may be (positional `?` only, so every driver binds the same way). */
export type SqlValue = null | number | bigint | string | Uint8Array;
export type Row = Record<string, unknown>;

export interface RunResult {
  changes: number;
  lastInsertRowid: number;
}

export interface Statement {
  run(...params: SqlValue[]): RunResult;
  get<T = Row>(...params: SqlValue[]): T | undefined;
  all<T = Row>(...params: SqlValue[]): T[];
}

export type Runtime = 'better-sqlite3' | 'bun:sqlite' | 'node:sqlite';

export interface Database {
  readonly runtime: Runtime;
  readonly file: string;
  /** Library and SQLite versions, for `state check`. */
  readonly version: string;
  exec(sql: string): void;
  /** Prepared statements are cached by their SQL text. */
  prepare(sql: string): Statement;
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
  backup(dest: string): Promise<void>;
  close(): void;
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

  exec(sql: string): void {
    this.raw.exec(sql);
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
