// Applies the drizzle-kit migrations (embedded from drizzle/ into ./migrations.ts) at open.
// Applied tags are tracked in `store_migrations`. The whole check-and-apply runs inside one
// BEGIN IMMEDIATE transaction, so several processes opening a fresh shared database at once
// serialise: the first applies, the others find the tags already recorded.
import type { Database } from './driver.ts';
import { type EmbeddedMigration, MIGRATIONS } from './migrations.ts';

export interface MigrateResult {
  applied: string[];
  /** Tags recorded in the database that this build does not know (a newer peer migrated it). */
  unknown: string[];
}

const BREAKPOINT = '--> statement-breakpoint';

// Raw SQL: the runner executes drizzle-kit's migration text and keeps its own bookkeeping table,
// which exists before (and outside) the schema it creates.
export function migrate(db: Database, migrations: EmbeddedMigration[] = MIGRATIONS): MigrateResult {
  return db.transaction(() => {
    db.exec(
      'CREATE TABLE IF NOT EXISTS store_migrations (tag TEXT PRIMARY KEY NOT NULL, sha256 TEXT NOT NULL, applied_at REAL NOT NULL)',
    );
    const done = new Set(
      db
        .prepare('SELECT tag FROM store_migrations')
        .all<{ tag: string }>()
        .map((r) => r.tag),
    );
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.tag)) continue;
      for (const statement of m.sql.split(BREAKPOINT)) if (statement.trim()) db.exec(statement);
      db.prepare('INSERT INTO store_migrations (tag, sha256, applied_at) VALUES (?, ?, ?)').run(
        m.tag,
        m.sha256,
        Date.now() / 1000,
      );
      applied.push(m.tag);
    }
    const known = new Set(migrations.map((m) => m.tag));
    return { applied, unknown: [...done].filter((t) => !known.has(t)).sort() };
  });
}
