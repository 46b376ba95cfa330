// Spec 09 §9.1 and §9.2, vector 41, on a real store file through the real CLI: `state gc` collects
// idempotency claims expired for longer than gcGraceSeconds, and an artifact put leaves one record
// per name.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { programEntry } from '../helpers/built.ts';
import { writeTree } from '../helpers/tmp.ts';
import { type Kit, registerRun, startKit } from './fixtures/jobapi-kit.ts';
import { cli as jobCli } from './fixtures/jobcli-kit.ts';

const ENTRY = programEntry();
const admin = (...args: string[]) => {
  const r = spawnSync(process.execPath, [...ENTRY, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

const DAY = 86_400_000;

/** The idempotency claims left in the store file, as `scope/key`. */
function claimsIn(statePath: string): string[] {
  const db = new Database(join(statePath, 'cronstable.db'), { readonly: true });
  try {
    return (
      db
        .prepare("SELECT doc_ns || '/' || key AS k FROM documents WHERE doc_ns LIKE 'idem/%' ORDER BY k")
        .all() as { k: string }[]
    ).map((r) => r.k);
  } finally {
    db.close();
  }
}

describe('v41: expired idempotency claims are collected (spec 09 §9.1)', () => {
  it('state gc deletes only claims expired longer than the grace; --dry-run only counts', async () => {
    const dir = writeTree({});
    const statePath = join(dir, 'state');
    const conf = join(dir, 'c.yaml');
    writeFileSync(
      conf,
      `state:\n  path: ${statePath}\n  topology: single-node\n  gcGraceSeconds: 86400\njobs:\n  - name: etl\n    command: x\n    schedule: "0 0 1 1 *"\n`,
    );
    const real = Date.now();
    const at = async (ms: number, fn: (s: Awaited<ReturnType<typeof openStore>>) => Promise<unknown>) => {
      const store = await openStore({
        path: statePath,
        namespace: 'default',
        topology: 'single-node',
        inline: true,
        now: () => ms,
      });
      await fn(store);
      await store.close();
    };
    // Permanent, expired two days ago, expired an hour ago, live.
    await at(real - 10 * DAY, (s) => s.idempotencyClaim('etl', 'permanent', 0));
    await at(real - 3 * DAY, (s) => s.idempotencyClaim('etl', 'two-days', 86_400));
    await at(real - 2 * 3_600_000, (s) => s.idempotencyClaim('etl', 'one-hour', 3_600));
    await at(real, (s) => s.idempotencyClaim('etl', 'live', 3_600));
    // A boolean expiresAt and an unreadable body are not claims gc can judge: they stay.
    const db = new Database(join(statePath, 'cronstable.db'));
    const insert = db.prepare(
      "INSERT INTO documents (ns, doc_ns, key, schema_version, data, updated_at) VALUES ('default', 'idem/etl', ?, 'v1', ?, 0)",
    );
    insert.run('boolean', JSON.stringify({ key: 'boolean', claimedAt: 0, expiresAt: true }));
    insert.run('unreadable', '{not json');
    db.close();
    const all = ['idem/etl/boolean', 'idem/etl/live', 'idem/etl/one-hour', 'idem/etl/permanent'];

    const dry = admin('-c', conf, 'state', 'gc', '--dry-run');
    expect(dry.err).toBe('');
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('state: gc would remove 1 expired idempotency claim(s)');
    expect(claimsIn(statePath)).toEqual([...all, 'idem/etl/two-days', 'idem/etl/unreadable']);

    const gc = admin('-c', conf, 'state', 'gc');
    expect(gc.code).toBe(0);
    expect(gc.out).toContain('state: gc removed 1 expired idempotency claim(s)');
    expect(claimsIn(statePath)).toEqual([...all, 'idem/etl/unreadable'].sort());

    // The collected key is winnable afresh; the one expired an hour ago was already.
    await at(real, async (s) => {
      expect(await s.idempotencyClaim('etl', 'two-days', 60)).toMatchObject({ fresh: true });
      expect(await s.idempotencyClaim('etl', 'permanent', 60)).toMatchObject({ fresh: false });
    });
  });
});

describe('v41: one artifact record per name (spec 09 §9.2)', () => {
  let kit: Kit;
  beforeAll(async () => {
    kit = await startKit();
  });
  afterAll(() => kit.close());

  it('three puts of `rep` leave one record, and get returns the third content', async () => {
    const env = registerRun(kit, { jobName: 'rep-job' }).env;
    for (const content of ['first\n', 'second\n', 'third\n'])
      expect((await jobCli(['artifact', 'put', 'rep', '-'], env, { stdin: content })).code).toBe(0);
    expect((await jobCli(['artifact', 'put', 'other', '-'], env, { stdin: 'x' })).code).toBe(0);
    const get = await jobCli(['artifact', 'get', 'rep'], env);
    expect(get).toMatchObject({ code: 0, out: 'third\n' });

    const db = new Database(join(kit.dir, 'cronstable.db'), { readonly: true });
    try {
      const rows = db
        .prepare(
          "SELECT json_extract(data, '$.name') AS name FROM records WHERE stream = 'artifacts/rep-job'",
        )
        .all();
      expect(rows).toEqual([{ name: 'rep' }, { name: 'other' }]);
      expect(
        db.prepare("SELECT name, versions FROM artifacts WHERE scope = 'rep-job' ORDER BY name").all(),
      ).toEqual([
        { name: 'other', versions: 1 },
        { name: 'rep', versions: 1 },
      ]);
    } finally {
      db.close();
    }
  });

  it('leaves a record it cannot read in place', async () => {
    const env = registerRun(kit, { jobName: 'odd-job' }).env;
    expect((await jobCli(['artifact', 'put', 'rep', '-'], env, { stdin: 'one' })).code).toBe(0);
    const db = new Database(join(kit.dir, 'cronstable.db'));
    try {
      db.prepare(
        "INSERT INTO records (ns, stream, schema_version, written_at, writer, data) VALUES ('default', 'artifacts/odd-job', 'v1', 0, 'test', '{broken')",
      ).run();
      db.prepare(
        "INSERT INTO records (ns, stream, schema_version, written_at, writer, data) VALUES ('default', 'artifacts/odd-job', 'v9', 0, 'test', ?)",
      ).run(JSON.stringify({ name: 'rep', sha256: 'f'.repeat(64), size: 1, at: 0 }));
    } finally {
      db.close();
    }
    expect((await jobCli(['artifact', 'put', 'rep', '-'], env, { stdin: 'two' })).code).toBe(0);
    expect(await jobCli(['artifact', 'get', 'rep'], env)).toMatchObject({ code: 0, out: 'two' });
    const check = new Database(join(kit.dir, 'cronstable.db'), { readonly: true });
    try {
      expect(
        check
          .prepare(
            "SELECT schema_version AS v, data FROM records WHERE stream = 'artifacts/odd-job' ORDER BY id",
          )
          .all()
          .map((r) => (r as { v: string }).v),
      ).toEqual(['v1', 'v9', 'v1']);
    } finally {
      check.close();
    }
  });
});
