// The job CLI as a child process against a live job API and the real store (spec 03 §7,
// spec 04 §6.2): outputs and every exit code of the §7 table.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Kit, registerRun, sleep, startKit } from './fixtures/jobapi-kit.ts';
import { cli } from './fixtures/jobcli-kit.ts';

// Many CLI children run concurrently; give slow shared machines room.
vi.setConfig({ testTimeout: 120_000 });

let kit: Kit;
let work: string;

beforeAll(async () => {
  kit = await startKit({ maxValueBytes: 1000, maxArtifactBytes: 4096 });
  work = mkdtempSync(join(tmpdir(), 'cronstable-jobcli-'));
});
afterAll(async () => {
  await kit.close();
  rmSync(work, { recursive: true, force: true });
});

/** A fresh run of job `etl` (own scope `etl`, may also use `orders-domain`). */
function job(overrides: Parameters<typeof registerRun>[1] = {}) {
  return registerRun(kit, overrides).env;
}

describe.concurrent('state', () => {
  it('set --json then get prints Python-style JSON', async () => {
    const env = job({ jobName: 'json-job' });
    const set = await cli(['state', 'set', 'stats', '{"rows": 1234, "ok": true}', '--json'], env);
    expect(set).toMatchObject({ code: 0, out: '', err: '' });
    const get = await cli(['state', 'get', 'stats'], env);
    expect(get).toMatchObject({ code: 0, out: '{"rows": 1234, "ok": true}\n' });
    await cli(['state', 'set', '--json', 'list', '[1,2]'], env);
    expect((await cli(['state', 'get', 'list'], env)).out).toBe('[1, 2]\n');
    await cli(['state', 'set', '--json', 'n', '42'], env);
    expect((await cli(['state', 'get', 'n'], env)).out).toBe('42\n');
    await cli(['state', 'set', '--json', 'nil', 'null'], env);
    expect((await cli(['state', 'get', 'nil'], env)).out).toBe('null\n');
  });

  it('prints strings verbatim', async () => {
    const env = job({ jobName: 'str-job' });
    expect((await cli(['state', 'set', 'greeting', 'hello "world" é'], env)).code).toBe(0);
    expect((await cli(['state', 'get', 'greeting'], env)).out).toBe('hello "world" é\n');
    // A JSON string given with --json is a string too.
    await cli(['state', 'set', 'q', '"quoted"', '--json'], env);
    expect((await cli(['state', 'get', 'q'], env)).out).toBe('quoted\n');
    // Negative numbers are values, not options.
    await cli(['state', 'set', 'neg', '-5'], env);
    expect((await cli(['state', 'get', 'neg'], env)).out).toBe('-5\n');
  });

  it('exits 4 for a missing key, lists keys, deletes (0 existed / 4 absent)', async () => {
    const env = job({ jobName: 'keys-job' });
    const miss = await cli(['state', 'get', 'nope'], env);
    expect(miss).toMatchObject({ code: 4, out: '', err: 'cronstable state: key not found: nope\n' });
    await cli(['state', 'set', 'b', '1'], env);
    await cli(['state', 'set', 'a', '2'], env);
    expect(await cli(['state', 'keys'], env)).toMatchObject({ code: 0, out: 'a\nb\n' });
    expect((await cli(['state', 'delete', 'a'], env)).code).toBe(0);
    const again = await cli(['state', 'delete', 'a'], env);
    expect(again).toMatchObject({ code: 4, err: 'cronstable state: key not found: a\n' });
    expect((await cli(['state', 'keys'], env)).out).toBe('b\n');
  });

  it('uses --global and --scope, refuses foreign scopes (exit 1) and both flags (exit 2)', async () => {
    const a = job({ jobName: 'scope-a' });
    const b = job({ jobName: 'scope-b', allowedScopes: [] });
    expect((await cli(['state', 'set', '--global', 'pulse-count', '7'], a)).code).toBe(0);
    expect((await cli(['state', 'get', 'pulse-count', '--global'], b)).out).toBe('7\n');
    expect((await cli(['state', 'get', 'pulse-count', '--scope', 'global'], b)).out).toBe('7\n');
    expect((await cli(['state', 'get', 'pulse-count'], b)).code).toBe(4);
    expect((await cli(['state', 'set', '--scope', 'orders-domain', 'x', '1'], a)).code).toBe(0);
    const denied = await cli(['state', 'get', 'x', '--scope', 'orders-domain'], b);
    expect(denied.code).toBe(1);
    expect(denied.err).toMatch(/^cronstable state: scope 'orders-domain' is not permitted for job 'scope-b'/);
    const both = await cli(['state', 'get', 'x', '--scope', 's', '--global'], a);
    expect(both.code).toBe(2);
    expect(both.err).toContain('not allowed with argument --scope');
  });

  it('exits 1 for invalid JSON, non-portable values and values over the cap', async () => {
    const env = job({ jobName: 'bad-values' });
    const invalid = await cli(['state', 'set', 'k', '{nope', '--json'], env);
    expect(invalid.code).toBe(1);
    expect(invalid.err).toMatch(/^cronstable state: VALUE is not valid JSON/);
    const nan = await cli(['state', 'set', 'k', 'NaN', '--json'], env);
    expect(nan.code).toBe(1);
    expect(nan.err).toMatch(/not portable/);
    const big = await cli(['state', 'set', 'k', '12345678901234567890', '--json'], env);
    expect(big.code).toBe(1);
    expect(big.err).toMatch(/outside the signed 64-bit range/);
    const over = await cli(['state', 'set', 'k', 'x'.repeat(1001)], env);
    expect(over.code).toBe(1);
    expect(over.err).toMatch(/maxValueBytes limit of 1000/);
  });

  it('exits 2 for usage errors and `--` misuse', async () => {
    const env = job();
    expect(await cli(['state', 'get'], env)).toMatchObject({ code: 2 });
    expect(await cli(['state', 'get', 'k', 'extra'], env)).toMatchObject({ code: 2 });
    const dd = await cli(['state', 'set', 'k', '--', 'v'], env);
    expect(dd).toMatchObject({
      code: 2,
      err: 'cronstable state: `--` is only valid before a `lock run` command\n',
    });
    expect(await cli(['cursor'], env)).toMatchObject({
      code: 2,
      err: 'cronstable cursor: no action given (see --help)\n',
    });
    const help = await cli(['state', 'get', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.out).toContain('usage: cronstable state get [-h] [--scope SCOPE | --global] KEY');
  });

  it('exits 1 outside a job and after the run ended', async () => {
    const outside = await cli(['state', 'get', 'k'], {});
    expect(outside).toMatchObject({
      code: 1,
      err: 'cronstable state: not running inside a cronstable job: CRONSTABLE_STATE_URL is not set\n',
    });
    const h = registerRun(kit);
    await kit.server.unregister(h.token);
    const ended = await cli(['state', 'get', 'k'], h.env);
    expect(ended.code).toBe(1);
    expect(ended.err).toMatch(/^cronstable state: .*HTTP 401/);
  });
});

describe.concurrent('cursor', () => {
  it('advances forward, prints the stored value, --force goes back', async () => {
    const env = job({ jobName: 'cursor-job' });
    expect(await cli(['cursor', 'get', 'c'], env)).toMatchObject({
      code: 4,
      err: 'cronstable cursor: cursor not set: c\n',
    });
    expect(await cli(['cursor', 'advance', 'c', '5'], env)).toMatchObject({ code: 0, out: '5\n' });
    expect(await cli(['cursor', 'advance', 'c', '3'], env)).toMatchObject({ code: 0, out: '5\n' });
    expect(await cli(['cursor', 'advance', 'c', '7.5'], env)).toMatchObject({ code: 0, out: '7.5\n' });
    expect(await cli(['cursor', 'get', 'c'], env)).toMatchObject({ code: 0, out: '7.5\n' });
    expect(await cli(['cursor', 'advance', '--force', 'c', '-1'], env)).toMatchObject({
      code: 0,
      out: '-1\n',
    });
    const clash = await cli(['cursor', 'advance', 'c', '2024-05-01T00:00:00Z'], env);
    expect(clash.code).toBe(1);
    expect(clash.err).toMatch(/^cronstable cursor: .*comparable value or pass force/);
    expect(await cli(['cursor', 'advance', 'c', '2024-05-01T00:00:00Z', '--force'], env)).toMatchObject({
      out: '2024-05-01T00:00:00Z\n',
    });
    expect(await cli(['cursor', 'advance', 'c', '2024-06-01T00:00:00Z'], env)).toMatchObject({
      out: '2024-06-01T00:00:00Z\n',
    });
  });

  it('uses the allowed scope', async () => {
    const env = job({ jobName: 'cursor-scope' });
    expect(
      (await cli(['cursor', 'advance', 'orders-high-water', '100', '--scope', 'orders-domain'], env)).out,
    ).toBe('100\n');
    expect((await cli(['cursor', 'get', 'orders-high-water', '--scope', 'orders-domain'], env)).out).toBe(
      '100\n',
    );
  });
});

describe.concurrent('idempotent', () => {
  it('exits 0 fresh, 5 duplicate, 0 on release', async () => {
    const env = job({ jobName: 'idem-job' });
    expect(await cli(['idempotent', 'order-42'], env)).toMatchObject({ code: 0, out: '' });
    expect(await cli(['idempotent', 'order-42'], job({ jobName: 'idem-job' }))).toMatchObject({
      code: 5,
      out: '',
    });
    expect((await cli(['idempotent', 'order-42', '--release'], env)).code).toBe(0);
    expect((await cli(['idempotent', '--release', 'order-42'], env)).code).toBe(0);
    expect((await cli(['idempotent', 'order-42'], env)).code).toBe(0);
    expect((await cli(['idempotent', 'g', '--global'], env)).code).toBe(0);
    expect((await cli(['idempotent', 'g', '--global'], job({ jobName: 'elsewhere' }))).code).toBe(5);
  });

  it('honours --ttl', async () => {
    const env = job({ jobName: 'idem-ttl' });
    // The claim lands somewhere between `before` and `after` the first call.
    const before = Date.now();
    expect((await cli(['idempotent', 'k', '--ttl', '3'], env)).code).toBe(0);
    const after = Date.now();
    const second = (await cli(['idempotent', 'k', '--ttl', '3'], env)).code;
    const afterSecond = Date.now();
    if (afterSecond < before + 3000) expect(second).toBe(5);
    // On a very slow machine the first claim may have expired already: the second re-won it.
    else expect([0, 5]).toContain(second);
    await sleep(Math.max(0, (second === 0 ? afterSecond : after) + 3100 - Date.now()));
    expect((await cli(['idempotent', 'k', '--ttl', '3'], env)).code).toBe(0);
    expect((await cli(['idempotent', 'k', '--ttl', 'soon'], env)).code).toBe(2);
  });

  it('exits 1 when the store is unavailable (never read as done)', async () => {
    const own = await startKit();
    try {
      const env = registerRun(own).env;
      own.server.setStore(null);
      const r = await cli(['idempotent', 'k'], env);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/^cronstable idempotent: state backend unavailable: /);
    } finally {
      await own.close();
    }
  });
});

describe.concurrent('lock', () => {
  it('acquire prints a token, 3 when held, release exits 0 (even if not held)', async () => {
    const a = job({ jobName: 'lock-a' });
    const b = job({ jobName: 'lock-b' });
    const got = await cli(['lock', 'acquire', 'mutex-1', '--global'], a);
    expect(got.code).toBe(0);
    expect(got.out).toMatch(/^[0-9a-f]{32}\n$/);
    const busy = await cli(['lock', 'acquire', '--global', 'mutex-1'], b);
    expect(busy).toMatchObject({ code: 3, out: '', err: 'cronstable lock: lock not acquired: mutex-1\n' });
    expect((await cli(['lock', 'release', got.out.trim()], b)).code).toBe(0); // not b's hold
    expect((await cli(['lock', 'acquire', 'mutex-1', '--global'], b)).code).toBe(3);
    expect((await cli(['lock', 'release', got.out.trim()], a)).code).toBe(0);
    expect((await cli(['lock', 'acquire', 'mutex-1', '--global'], b)).code).toBe(0);
    expect((await cli(['lock', 'release', 'f'.repeat(32)], a)).code).toBe(0);
  });

  it('run returns the command exit code and releases afterwards', async () => {
    const env = job({ jobName: 'lock-run' });
    const r = await cli(
      ['lock', 'run', 'deploy', '--', 'sh', '-c', 'echo "in lock $1"; exit 7', 'sh', 'arg'],
      env,
    );
    expect(r).toMatchObject({ code: 7, out: 'in lock arg\n' });
    expect(await kit.store.leaseRead('lock/lock-run/deploy#0')).toBeNull();
    const ok = await cli(
      ['lock', 'run', '--global', '--wait', '--timeout', '30', 'deploy', '--', 'true'],
      env,
    );
    expect(ok.code).toBe(0);
    expect(await kit.store.leaseRead('lock/global/deploy#0')).toBeNull();
  });

  it('run exits 3 without running the command when the lock is held', async () => {
    const holder = job({ jobName: 'lock-held' });
    const marker = join(work, 'ran-held');
    const held = await cli(['lock', 'acquire', 'busy', '--global'], holder);
    const r = await cli(['lock', 'run', 'busy', '--global', '--', 'touch', marker], job());
    expect(r).toMatchObject({ code: 3, err: 'cronstable lock: lock not acquired: busy\n' });
    expect(existsSync(marker)).toBe(false);
    await cli(['lock', 'release', held.out.trim()], holder);
  });

  it('run shares --permits 2 between two holders and refuses a third', async () => {
    const base = ['lock', 'run', 'pool', '--permits', '2', '--global', '--'];
    const gate = join(work, 'pool-gate');
    const slow = ['sh', '-c', `while [ ! -e ${gate} ]; do sleep 0.05; done; exit 3`];
    const p1 = cli([...base, ...slow], job());
    const p2 = cli([...base, ...slow], job());
    while (
      !(await kit.store.leaseRead('lock/global/pool#0')) ||
      !(await kit.store.leaseRead('lock/global/pool#1'))
    )
      await sleep(50);
    const marker = join(work, 'pool-third');
    const third = await cli([...base, 'touch', marker], job());
    expect(third.code).toBe(3);
    expect(existsSync(marker)).toBe(false);
    writeFileSync(gate, '');
    // The command's own exit code (3 here too) comes back through lock run.
    expect((await p1).code).toBe(3);
    expect((await p2).code).toBe(3);
    expect((await cli([...base, 'true'], job())).code).toBe(0);
  });

  it('run --wait --timeout gets the lock once the holder releases', async () => {
    const holder = job({ jobName: 'lock-wait-holder' });
    const held = await cli(['lock', 'acquire', 'w', '--global'], holder);
    const waiting = cli(
      ['lock', 'run', 'w', '--global', '--wait', '--timeout', '20', '--', 'echo', 'got it'],
      job(),
    );
    await sleep(800);
    await cli(['lock', 'release', held.out.trim()], holder);
    expect(await waiting).toMatchObject({ code: 0, out: 'got it\n' });
    const late = await cli(['lock', 'acquire', 'w', '--global', '--wait', '--timeout', '0.5'], job());
    expect(late.code).toBe(0);
  });

  it('run exits 1 with no command or an unrunnable one, and still releases', async () => {
    const env = job({ jobName: 'lock-bad' });
    const none = await cli(['lock', 'run', 'x'], env);
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/no command given/);
    const empty = await cli(['lock', 'run', 'x', '--'], env);
    expect(empty.code).toBe(1);
    const missing = await cli(['lock', 'run', 'x', '--', '/nonexistent/cmd'], env);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/cannot run '\/nonexistent\/cmd'/);
    expect(await kit.store.leaseRead('lock/lock-bad/x#0')).toBeNull();
    const notExec = join(work, 'not-exec.sh');
    writeFileSync(notExec, 'echo hi\n', { mode: 0o644 });
    expect((await cli(['lock', 'run', 'x', '--', notExec], env)).code).toBe(1);
    expect(await kit.store.leaseRead('lock/lock-bad/x#0')).toBeNull();
    expect((await cli(['lock', 'run', '--', 'true'], env)).code).toBe(2);
    expect((await cli(['lock', 'run', 'x', 'true'], env)).code).toBe(2);
  });

  it('run releases after a command that outlives the keep-alive connection', async () => {
    const env = job({ jobName: 'lock-long' });
    const r = await cli(['lock', 'run', 'long', '--', 'sleep', '5.5'], env);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(await kit.store.leaseRead('lock/lock-long/long#0')).toBeNull();
  });

  it('run releases when the command is signalled', async () => {
    const env = job({ jobName: 'lock-signal' });
    const r = await cli(['lock', 'run', 's', '--', 'sh', '-c', 'kill -TERM $$'], env);
    expect(r.code).toBe(128 + 15);
    expect(await kit.store.leaseRead('lock/lock-signal/s#0')).toBeNull();
    // A signal sent to the CLI itself is forwarded; the hold is released afterwards.
    let pid = 0;
    const pending = cli(['lock', 'run', 's', '--', 'sleep', '30'], env, { onSpawn: (p) => (pid = p) });
    while (!(await kit.store.leaseRead('lock/lock-signal/s#0'))) await sleep(50);
    await sleep(200); // the command is being spawned
    process.kill(pid, 'SIGTERM');
    const killed = await pending;
    expect(killed.code).toBe(128 + 15);
    expect(await kit.store.leaseRead('lock/lock-signal/s#0')).toBeNull();
  });

  it('run stops waiting when signalled during the acquire, without running the command', async () => {
    const holder = job({ jobName: 'lock-sig-wait' });
    const held = await cli(['lock', 'acquire', 'sw', '--global'], holder);
    const marker = join(work, 'ran-sig-wait');
    let pid = 0;
    const waiter = registerRun(kit);
    const args = ['lock', 'run', 'sw', '--global', '--wait', '--timeout', '60', '--', 'touch', marker];
    const pending = cli(args, waiter.env, { onSpawn: (p) => (pid = p) });
    while (kit.server.blockedAcquires(waiter.token) === 0) await sleep(20);
    process.kill(pid, 'SIGTERM');
    const t0 = Date.now();
    expect((await pending).code).toBe(128 + 15);
    expect(Date.now() - t0).toBeLessThan(15_000); // not the 60 s wait
    expect(existsSync(marker)).toBe(false);
    await cli(['lock', 'release', held.out.trim()], holder);
    await sleep(1500); // the abandoned acquire notices its client is gone within one poll
    expect(await kit.store.leaseRead('lock/global/sw#0')).toBeNull();
  });
});

describe.concurrent('artifact', () => {
  const binary = Buffer.from([0, 255, 1, 254, 10, 13, 0x80, 0x7f, 0]);

  it('put FILE / stdin and get round-trip binary bytes', async () => {
    const env = job({ jobName: 'art-job' });
    const file = join(work, 'payload.bin');
    writeFileSync(file, binary);
    const put = await cli(['artifact', 'put', 'report', file], env);
    expect(put.code).toBe(0);
    expect(put.out).toMatch(/^[0-9a-f]{64}\n$/);
    const get = await cli(['artifact', 'get', 'report'], env);
    expect(get.code).toBe(0);
    expect(get.stdout.equals(binary)).toBe(true);
    const viaStdin = await cli(['artifact', 'put', 'from-stdin', '-'], env, { stdin: binary });
    expect(viaStdin.out).toBe(put.out);
    const omitted = await cli(['artifact', 'put', 'omitted'], env, { stdin: 'text' });
    expect(omitted.code).toBe(0);
    const out = join(work, 'fetched.bin');
    expect((await cli(['artifact', 'get', 'from-stdin', '-o', out], env)).code).toBe(0);
    expect(readFileSync(out).equals(binary)).toBe(true);
    expect(await cli(['artifact', 'list'], env)).toMatchObject({
      code: 0,
      out: 'from-stdin\nomitted\nreport\n',
    });
  });

  it('exits 4 when absent and 1 on errors', async () => {
    const env = job({ jobName: 'art-miss' });
    expect(await cli(['artifact', 'get', 'nope'], env)).toMatchObject({
      code: 4,
      err: 'cronstable artifact: artifact not found: nope\n',
    });
    const unreadable = await cli(['artifact', 'put', 'x', join(work, 'does-not-exist')], env);
    expect(unreadable.code).toBe(1);
    expect(unreadable.err).toMatch(/^cronstable artifact: cannot read /);
    const big = await cli(['artifact', 'put', 'big', '-'], env, { stdin: new Uint8Array(5000) });
    expect(big.code).toBe(1);
    expect(big.err).toMatch(/maxArtifactBytes limit of 4096/);
  });
});

describe('artifact gone', () => {
  it('exits 1 when the payload was swept (410)', async () => {
    const own = await startKit();
    try {
      const env = registerRun(own).env;
      expect((await cli(['artifact', 'put', 'swept', '-'], env, { stdin: 'payload' })).code).toBe(0);
      const db = new Database(join(own.dir, 'cronstable.db'));
      db.prepare('DELETE FROM blobs').run();
      db.close();
      const r = await cli(['artifact', 'get', 'swept'], env);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/^cronstable artifact: artifact 'swept' is gone/);
      expect(r.out).toBe('');
    } finally {
      await own.close();
    }
  });
});

describe.concurrent('secret', () => {
  it('gets and lists the staged secrets', async () => {
    const env = job();
    expect(await cli(['secret', 'get', 'API_TOKEN'], env)).toMatchObject({ code: 0, out: 'tok-123\n' });
    expect(await cli(['secret', 'list'], env)).toMatchObject({ code: 0, out: 'API_TOKEN\nDB_PASS\n' });
    expect(await cli(['secret', 'get', 'NOPE'], env)).toMatchObject({
      code: 4,
      err: 'cronstable secret: secret not staged: NOPE\n',
    });
  });
});

describe.concurrent('xcom', () => {
  function task(taskKey: string, mapIndex: number | null = null) {
    return registerRun(kit, {
      jobName: `orders.${taskKey.split('#')[0]}`,
      scheduledAt: null,
      dag: {
        name: 'orders',
        runId: 'f'.repeat(32),
        runKey: 'manual__1',
        task: taskKey.split('#')[0]!,
        taskKey,
        mapIndex,
        xcomScope: `dagxcom/orders/${'f'.repeat(32)}`,
      },
    }).env;
  }

  it('push, pull and list inside a DAG task', async () => {
    const push = await cli(['xcom', 'push', '--key', 'shards'], task('discover'), { stdin: '["eu","us"]' });
    expect(push).toMatchObject({ code: 0, out: '' });
    const file = join(work, 'xcom-out');
    writeFileSync(file, 'mapped-2');
    expect((await cli(['xcom', 'push', '--key', 'out', file], task('load#2', 2))).code).toBe(0);
    const pull = await cli(['xcom', 'pull', '--task', 'discover', '--key', 'shards'], task('load#0', 0));
    expect(pull).toMatchObject({ code: 0, out: '["eu","us"]' });
    const mapped = await cli(
      ['xcom', 'pull', '--task', 'load', '--key', 'out', '--map-index', '2'],
      task('report'),
    );
    expect(mapped).toMatchObject({ code: 0, out: 'mapped-2' });
    const dest = join(work, 'pulled');
    expect(
      (
        await cli(
          ['xcom', 'pull', '--task', 'load', '--key', 'out', '--map-index', '2', '-o', dest],
          task('r'),
        )
      ).code,
    ).toBe(0);
    expect(readFileSync(dest, 'utf8')).toBe('mapped-2');
    const unmapped = await cli(['xcom', 'pull', '--task', 'load', '--key', 'out'], task('report'));
    expect(unmapped).toMatchObject({ code: 4, err: "cronstable xcom: no xcom 'out' from task 'load'\n" });
    expect(await cli(['xcom', 'list'], task('report'))).toMatchObject({
      code: 0,
      out: 'discover/shards\nload#2/out\n',
    });
  });

  it('exits 1 outside a DAG task and 2 without an action', async () => {
    const r = await cli(['xcom', 'push', '--key', 'k'], job(), { stdin: 'x' });
    expect(r).toMatchObject({ code: 1, err: 'cronstable xcom: not running inside a cronstable DAG task\n' });
    expect((await cli(['xcom'], job())).code).toBe(2);
    expect((await cli(['xcom', 'pull', '--task', 't'], job())).code).toBe(2);
  });
});
