// The job API over real loopback HTTP against the real SQLite store (spec 03 §6).

import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobApiServer } from '../../src/jobapi/server.ts';
import { call, type Kit, registerRun, sleep, startKit } from './fixtures/jobapi-kit.ts';

let kit: Kit;
let token: string;
let other: string;

beforeAll(async () => {
  kit = await startKit();
  token = registerRun(kit).token;
  other = registerRun(kit, { jobName: 'report', allowedScopes: [] }).token;
});
afterAll(async () => {
  await kit.close();
});

describe('registration and auth', () => {
  it('injects the §6.2 environment', () => {
    const h = registerRun(kit, { attempt: 2 });
    expect(h.token).toMatch(/^[0-9a-f]{64}$/);
    expect(h.runId).toMatch(/^[0-9a-f]{32}$/);
    expect(h.env).toEqual({
      CRONSTABLE_STATE_URL: kit.server.url,
      CRONSTABLE_STATE_TOKEN: h.token,
      CRONSTABLE_RUN_ID: h.runId,
      CRONSTABLE_JOB_NAME: 'etl',
      CRONSTABLE_ATTEMPT: '2',
      CRONSTABLE_SCHEDULED_AT: '2024-05-01T00:00:00Z',
      CRONSTABLE_HOST: 'test-host',
    });
    expect(kit.server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const manual = registerRun(kit, { scheduledAt: null });
    expect(manual.env.CRONSTABLE_SCHEDULED_AT).toBe('');
  });

  it('adds the DAG task variables and uses the XCom scope as default scope', async () => {
    const h = registerRun(kit, {
      jobName: 'orders.load',
      scheduledAt: null,
      dag: {
        name: 'orders',
        runId: 'a'.repeat(32),
        runKey: 'scheduled__2024-05-01T00:00:00Z',
        task: 'load',
        taskKey: 'load#2',
        mapIndex: 2,
        mapItem: { region: 'eu', n: [1, 2] },
        xcomScope: `dagxcom/orders/${'a'.repeat(32)}`,
      },
    });
    expect(h.env).toMatchObject({
      CRONSTABLE_JOB_NAME: 'orders.load',
      CRONSTABLE_DAG_NAME: 'orders',
      CRONSTABLE_DAG_RUN_ID: 'a'.repeat(32),
      CRONSTABLE_DAG_RUN_KEY: 'scheduled__2024-05-01T00:00:00Z',
      CRONSTABLE_DAG_TASK: 'load',
      CRONSTABLE_DAG_TASKKEY: 'load#2',
      CRONSTABLE_DAG_MAP_INDEX: '2',
      CRONSTABLE_DAG_MAP_ITEM: '{"region": "eu", "n": [1, 2]}',
      CRONSTABLE_DAG_XCOM_SCOPE: `dagxcom/orders/${'a'.repeat(32)}`,
    });
    const run = await call(kit, 'GET', '/v1/run', { token: h.token });
    expect(run.json).toMatchObject({ defaultScope: `dagxcom/orders/${'a'.repeat(32)}` });
    const plain = registerRun(kit, {
      dag: {
        name: 'd',
        runId: 'r',
        runKey: 'k',
        task: 't',
        taskKey: 't',
        mapIndex: null,
        xcomScope: 'dagxcom/d/r',
      },
    });
    expect(plain.env.CRONSTABLE_DAG_MAP_INDEX).toBe('');
    expect(plain.env.CRONSTABLE_DAG_MAP_ITEM).toBe('');
    const str = registerRun(kit, {
      dag: {
        name: 'd',
        runId: 'r',
        runKey: 'k',
        task: 't',
        taskKey: 't#0',
        mapIndex: 0,
        mapItem: 'eu',
        xcomScope: 's',
      },
    });
    expect(str.env.CRONSTABLE_DAG_MAP_ITEM).toBe('"eu"');
  });

  it('answers 401 in plain text without a valid bearer token', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer nope' },
      { authorization: `Basic ${token}` },
      { authorization: token },
      { authorization: `Bearer ${token}x` },
      { authorization: `Bearer ${token.slice(1)}` },
    ]) {
      const r = await call(kit, 'GET', '/v1/run', { headers });
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(r.json).toBeUndefined();
    }
  });

  it('accepts the bearer scheme case-insensitively', async () => {
    const r = await call(kit, 'GET', '/v1/run', { headers: { authorization: `bEaReR ${token}` } });
    expect(r.status).toBe(200);
  });

  it('serves the run identity', async () => {
    const r = await call(kit, 'GET', '/v1/run', { token });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      runId: expect.stringMatching(/^[0-9a-f]{32}$/),
      job: 'etl',
      attempt: 0,
      scheduledAt: '2024-05-01T00:00:00Z',
      host: 'test-host',
      defaultScope: 'etl',
    });
  });

  it('revokes the token and drops secrets at unregister', async () => {
    const h = registerRun(kit);
    expect((await call(kit, 'GET', '/v1/secret/get?name=API_TOKEN', { token: h.token })).status).toBe(200);
    await kit.server.unregister(h.token);
    const r = await call(kit, 'GET', '/v1/secret/get?name=API_TOKEN', { token: h.token });
    expect(r.status).toBe(401);
    await kit.server.unregister(h.token); // idempotent
  });

  it('answers 404 for unknown routes and 405 for a wrong method', async () => {
    expect((await call(kit, 'GET', '/v1/nope', { token })).status).toBe(404);
    const r = await call(kit, 'GET', '/v1/kv/set', { token });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    expect((await call(kit, 'POST', '/v1/kv/get', { token, json: {} })).status).toBe(405);
  });
});

describe('kv', () => {
  it('sets, gets, lists and deletes', async () => {
    const set = await call(kit, 'POST', '/v1/kv/set', {
      token,
      json: { key: 'b', value: { rows: 1234, ok: true } },
    });
    expect(set.status).toBe(200);
    expect(set.json).toEqual({ ok: true, updatedAt: expect.any(Number) });
    const updatedAt = (set.json as { updatedAt: number }).updatedAt;
    expect(Math.abs(updatedAt - Date.now() / 1000)).toBeLessThan(5);
    await call(kit, 'POST', '/v1/kv/set', { token, json: { key: 'a', value: null } });
    const get = await call(kit, 'GET', '/v1/kv/get?key=b', { token });
    expect(get.json).toEqual({ value: { rows: 1234, ok: true }, updatedAt });
    // null value ≠ absent
    expect(await call(kit, 'GET', '/v1/kv/get?key=a', { token })).toMatchObject({
      status: 200,
      json: { value: null },
    });
    const list = await call(kit, 'GET', '/v1/kv/list', { token });
    expect(list.json).toEqual({
      scope: 'etl',
      keys: [
        { key: 'a', value: null, updatedAt: expect.any(Number) },
        { key: 'b', value: { rows: 1234, ok: true }, updatedAt },
      ],
    });
    expect((await call(kit, 'POST', '/v1/kv/delete', { token, json: { key: 'a' } })).json).toEqual({
      existed: true,
    });
    expect((await call(kit, 'POST', '/v1/kv/delete', { token, json: { key: 'a' } })).json).toEqual({
      existed: false,
    });
    const gone = await call(kit, 'GET', '/v1/kv/get?key=a', { token });
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ error: 'key not found: a' });
  });

  it('keeps scopes apart and shares global', async () => {
    await call(kit, 'POST', '/v1/kv/set', { token, json: { key: 'shared', value: 1, scope: 'global' } });
    await call(kit, 'POST', '/v1/kv/set', { token, json: { key: 'shared', value: 'own' } });
    expect(
      (await call(kit, 'GET', '/v1/kv/get?key=shared&scope=global', { token: other })).json,
    ).toMatchObject({
      value: 1,
    });
    expect((await call(kit, 'GET', '/v1/kv/get?key=shared', { token: other })).status).toBe(404);
    await call(kit, 'POST', '/v1/kv/set', { token, json: { key: 'o', value: 2, scope: 'orders-domain' } });
    expect((await call(kit, 'GET', '/v1/kv/list?scope=orders-domain', { token })).json).toMatchObject({
      scope: 'orders-domain',
      keys: [{ key: 'o', value: 2 }],
    });
  });

  it('refuses a foreign scope with 403', async () => {
    for (const r of [
      await call(kit, 'GET', '/v1/kv/get?key=x&scope=orders-domain', { token: other }),
      await call(kit, 'POST', '/v1/kv/set', { token: other, json: { key: 'x', value: 1, scope: 'etl' } }),
      await call(kit, 'GET', '/v1/kv/list?scope=etl', { token: other }),
      await call(kit, 'POST', '/v1/kv/delete', { token: other, json: { key: 'x', scope: 'etl' } }),
    ]) {
      expect(r.status).toBe(403);
      expect((r.json as { error: string }).error).toMatch(
        /^scope '(orders-domain|etl)' is not permitted for job 'report'; add it to stateAllowedScopes/,
      );
    }
  });

  it('reports missing fields, bad JSON and non-objects with 400', async () => {
    const cases: [string, Awaited<ReturnType<typeof call>>][] = [
      ['key is required', await call(kit, 'GET', '/v1/kv/get', { token })],
      ['key is required', await call(kit, 'POST', '/v1/kv/set', { token, json: { value: 1 } })],
      ['value is required', await call(kit, 'POST', '/v1/kv/set', { token, json: { key: 'k' } })],
      ['key is required', await call(kit, 'POST', '/v1/kv/delete', { token, json: {} })],
      ['request body must be a JSON object', await call(kit, 'POST', '/v1/kv/set', { token, json: [1, 2] })],
      ['request body must be a JSON object', await call(kit, 'POST', '/v1/kv/set', { token, body: '' })],
    ];
    for (const [msg, r] of cases) {
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ error: msg });
    }
    const bad = await call(kit, 'POST', '/v1/kv/set', { token, body: '{"key": "k", "value": ' });
    expect(bad.status).toBe(400);
    expect((bad.json as { error: string }).error).toMatch(/not valid JSON/);
  });

  it('answers a body nested at any depth with a JSON 400, arrays and objects alike (never a 503)', async () => {
    for (const depth of [600, 5_000, 200_000]) {
      const arrays = `{"key":"deep","value":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const objects = `{"key":"deep","value":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
      for (const body of [arrays, objects]) {
        const r = await call(kit, 'POST', '/v1/kv/set', { token, body });
        expect([depth, r.status]).toEqual([depth, 400]);
        expect((r.json as { error: string }).error).toMatch(/nest/);
      }
    }
    // A value nested within the limit is stored as usual.
    const ok = await call(kit, 'POST', '/v1/kv/set', {
      token,
      body: `{"key":"deep","value":${'['.repeat(100)}${']'.repeat(100)}}`,
    });
    expect(ok.status).toBe(200);
  });

  it('refuses non-portable values with 400 before any store work', async () => {
    for (const body of [
      '{"key":"np","value":NaN}',
      '{"key":"np","value":[Infinity]}',
      '{"key":"np","value":9223372036854775808}',
      '{"key":"np","value":{"a":-9223372036854775809}}',
    ]) {
      const r = await call(kit, 'POST', '/v1/kv/set', { token, body });
      expect(r.status, body).toBe(400);
      expect((r.json as { error: string }).error).toMatch(/not portable/);
    }
    expect((await call(kit, 'GET', '/v1/kv/get?key=np', { token })).status).toBe(404);
    const ok = await call(kit, 'POST', '/v1/kv/set', {
      token,
      body: '{"key":"np","value":9007199254740991}',
    });
    expect(ok.status).toBe(200);
  });
});

describe('cursors', () => {
  it('advances forward only unless forced', async () => {
    expect((await call(kit, 'GET', '/v1/cursor/get?name=c', { token })).status).toBe(404);
    const adv = (value: unknown, force?: boolean) =>
      call(kit, 'POST', '/v1/cursor/advance', { token, json: { name: 'c', value, force } });
    expect((await adv(10)).json).toEqual({ value: 10, advanced: true });
    expect((await adv(12.5)).json).toEqual({ value: 12.5, advanced: true });
    const before = (await call(kit, 'GET', '/v1/cursor/get?name=c', { token })).json as { updatedAt: number };
    expect((await adv(3)).json).toEqual({ value: 12.5, advanced: false });
    expect((await call(kit, 'GET', '/v1/cursor/get?name=c', { token })).json).toEqual(before);
    expect((await adv(3, true)).json).toEqual({ value: 3, advanced: true });
    const clash = await adv('2024-01-01');
    expect(clash.status).toBe(409);
    expect((clash.json as { error: string }).error).toMatch(/comparable value or pass force/);
    expect((await adv('2024-01-01', true)).json).toEqual({ value: '2024-01-01', advanced: true });
    expect((await adv('2024-02-01')).json).toEqual({ value: '2024-02-01', advanced: true });
    expect((await adv('2023-12-31')).json).toEqual({ value: '2024-02-01', advanced: false });
  });

  it('validates its input', async () => {
    const missing = await call(kit, 'POST', '/v1/cursor/advance', { token, json: { name: 'c' } });
    expect(missing).toMatchObject({ status: 400, json: { error: 'value is required' } });
    const noName = await call(kit, 'POST', '/v1/cursor/advance', { token, json: { value: 1 } });
    expect(noName).toMatchObject({ status: 400, json: { error: 'name is required' } });
    expect((await call(kit, 'GET', '/v1/cursor/get', { token })).json).toEqual({ error: 'name is required' });
    const scope = await call(kit, 'POST', '/v1/cursor/advance', {
      token: other,
      json: { name: 'c', value: 1, scope: 'etl' },
    });
    expect(scope.status).toBe(403);
  });
});

describe('idempotency', () => {
  it('claims once, then reports duplicates with the original claim time', async () => {
    const first = await call(kit, 'POST', '/v1/idempotency/claim', { token, json: { key: 'k1' } });
    expect(first.json).toEqual({ fresh: true, claimedAt: expect.any(Number) });
    const again = await call(kit, 'POST', '/v1/idempotency/claim', {
      token: other,
      json: { key: 'k1', scope: 'global' },
    });
    expect(again.json).toMatchObject({ fresh: true });
    const dup = await call(kit, 'POST', '/v1/idempotency/claim', { token, json: { key: 'k1' } });
    expect(dup.json).toEqual({ fresh: false, claimedAt: (first.json as { claimedAt: number }).claimedAt });
    const rel = await call(kit, 'POST', '/v1/idempotency/release', { token, json: { key: 'k1' } });
    expect(rel.json).toEqual({ released: true });
    expect((await call(kit, 'POST', '/v1/idempotency/release', { token, json: { key: 'k1' } })).json).toEqual(
      {
        released: false,
      },
    );
    expect(
      (await call(kit, 'POST', '/v1/idempotency/claim', { token, json: { key: 'k1' } })).json,
    ).toMatchObject({
      fresh: true,
    });
  });

  it('lets a TTL claim be won again after it expires', async () => {
    const claim = () => call(kit, 'POST', '/v1/idempotency/claim', { token, json: { key: 'ttl', ttl: 2 } });
    const before = Date.now();
    expect((await claim()).json).toMatchObject({ fresh: true });
    const after = Date.now();
    const second = (await claim()).json as { fresh: boolean };
    if (Date.now() < before + 2000) expect(second.fresh).toBe(false);
    await sleep(Math.max(0, after + 2100 - Date.now()));
    if (!second.fresh) expect((await claim()).json).toMatchObject({ fresh: true });
  });

  it('refuses a non-numeric ttl and a missing key', async () => {
    const r = await call(kit, 'POST', '/v1/idempotency/claim', { token, json: { key: 'k', ttl: 'soon' } });
    expect(r).toMatchObject({ status: 400, json: { error: 'ttl must be a number' } });
    expect((await call(kit, 'POST', '/v1/idempotency/claim', { token, json: {} })).json).toEqual({
      error: 'key is required',
    });
  });
});

describe('artifacts', () => {
  const payload = new Uint8Array([0, 1, 2, 255, 254, 10, 13, 0]);

  it('round-trips raw bytes with sha256/size headers', async () => {
    const put = await call(kit, 'POST', '/v1/artifact/put?name=report.bin', { token, body: payload });
    expect(put.status).toBe(200);
    const { sha256, size } = put.json as { sha256: string; size: number };
    expect(size).toBe(8);
    expect(sha256).toMatch(/^[0-9a-f]{64}$/);
    const get = await call(kit, 'GET', '/v1/artifact/get?name=report.bin', { token });
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toBe('application/octet-stream');
    expect(get.headers.get('x-cronstable-sha256')).toBe(sha256);
    expect(get.headers.get('x-cronstable-size')).toBe('8');
    expect([...get.bytes]).toEqual([...payload]);
  });

  it('serves the newest version and lists newest per name, sorted', async () => {
    await call(kit, 'POST', '/v1/artifact/put?name=z&scope=global', { token, body: 'v1' });
    await call(kit, 'POST', '/v1/artifact/put?name=a&scope=global', { token, body: 'a' });
    await call(kit, 'POST', '/v1/artifact/put?name=z&scope=global', { token, body: 'v2!' });
    const get = await call(kit, 'GET', '/v1/artifact/get?name=z&scope=global', { token: other });
    expect(get.text).toBe('v2!');
    const list = await call(kit, 'GET', '/v1/artifact/list?scope=global', { token });
    expect(list.json).toEqual({
      scope: 'global',
      artifacts: [
        { name: 'a', sha256: expect.any(String), size: 1, at: expect.any(Number) },
        { name: 'z', sha256: expect.any(String), size: 3, at: expect.any(Number) },
      ],
    });
  });

  it('answers 404 for a never-published artifact and 400 without a name', async () => {
    const r = await call(kit, 'GET', '/v1/artifact/get?name=missing', { token });
    expect(r).toMatchObject({ status: 404, json: { error: 'artifact not found: missing' } });
    expect((await call(kit, 'POST', '/v1/artifact/put', { token, body: 'x' })).json).toEqual({
      error: 'name is required',
    });
    expect(
      (await call(kit, 'POST', '/v1/artifact/put?name=x&scope=payroll', { token, body: 'x' })).status,
    ).toBe(403);
  });

  it('answers 410 when the record exists but its blob was swept', async () => {
    const own = await startKit();
    try {
      const t = registerRun(own).token;
      await call(own, 'POST', '/v1/artifact/put?name=swept', { token: t, body: 'payload' });
      // What the GC's orphan-blob sweep does, done directly on the database.
      const db = new Database(join(own.dir, 'cronstable.db'));
      db.prepare('DELETE FROM blobs').run();
      db.close();
      const r = await call(own, 'GET', '/v1/artifact/get?name=swept', { token: t });
      expect(r.status).toBe(410);
      expect((r.json as { error: string }).error).toMatch(/gone/);
    } finally {
      await own.close();
    }
  });
});

describe('caps', () => {
  it('refuses values over maxValueBytes and artifacts over maxArtifactBytes with 413', async () => {
    const own = await startKit({ maxValueBytes: 10, maxArtifactBytes: 100 });
    try {
      const t = registerRun(own).token;
      const fits = await call(own, 'POST', '/v1/kv/set', { token: t, json: { key: 'k', value: '12345678' } });
      expect(fits.status).toBe(200); // 10 bytes with quotes
      const big = await call(own, 'POST', '/v1/kv/set', { token: t, json: { key: 'k', value: '123456789' } });
      expect(big.status).toBe(413);
      expect((big.json as { error: string }).error).toMatch(/11 bytes.*maxValueBytes limit of 10/);
      const cur = await call(own, 'POST', '/v1/cursor/advance', {
        token: t,
        json: { name: 'c', value: 'x'.repeat(20) },
      });
      expect(cur.status).toBe(413);
      const ok = await call(own, 'POST', '/v1/artifact/put?name=a', { token: t, body: new Uint8Array(100) });
      expect(ok.status).toBe(200);
      const over = await call(own, 'POST', '/v1/artifact/put?name=a', {
        token: t,
        body: new Uint8Array(101),
      });
      expect(over.status).toBe(413);
      expect((over.json as { error: string }).error).toMatch(/101 bytes.*maxArtifactBytes limit of 100/);
      // A JSON body over the transport cap (max(100, 60) + 64 KiB) is a truthful 413.
      const huge = await call(own, 'POST', '/v1/kv/set', {
        token: t,
        json: { key: 'k', value: 'x'.repeat(70_000) },
      });
      expect(huge.status).toBe(413);
      expect((huge.json as { error: string }).error).toMatch(/transport limit/);
      // The connection stays usable.
      expect((await call(own, 'GET', '/v1/kv/get?key=k', { token: t })).json).toMatchObject({
        value: '12345678',
      });
    } finally {
      await own.close();
    }
  });

  it('lifts the caps when they are 0', async () => {
    const own = await startKit({ maxValueBytes: 0, maxArtifactBytes: 0 });
    try {
      const t = registerRun(own).token;
      const r = await call(own, 'POST', '/v1/kv/set', {
        token: t,
        json: { key: 'k', value: 'x'.repeat(200_000) },
      });
      expect(r.status).toBe(200);
      const a = await call(own, 'POST', '/v1/artifact/put?name=a', {
        token: t,
        body: new Uint8Array(300_000),
      });
      expect(a.json).toMatchObject({ size: 300_000 });
    } finally {
      await own.close();
    }
  });
});

describe('secrets', () => {
  it('serves only the run’s own staged secrets', async () => {
    expect((await call(kit, 'GET', '/v1/secret/get?name=API_TOKEN', { token })).json).toEqual({
      value: 'tok-123',
    });
    expect((await call(kit, 'GET', '/v1/secret/list', { token })).json).toEqual({
      names: ['API_TOKEN', 'DB_PASS'],
    });
    const none = registerRun(kit, { secrets: {} });
    expect((await call(kit, 'GET', '/v1/secret/list', { token: none.token })).json).toEqual({ names: [] });
    const r = await call(kit, 'GET', '/v1/secret/get?name=API_TOKEN', { token: none.token });
    expect(r).toMatchObject({ status: 404, json: { error: 'secret not staged: API_TOKEN' } });
    expect((await call(kit, 'GET', '/v1/secret/get', { token })).status).toBe(400);
  });
});

describe('store failures', () => {
  it('answers 503 when the store is closed or absent', async () => {
    const own = await startKit();
    try {
      const t = registerRun(own).token;
      await own.store.close();
      for (const r of [
        await call(own, 'GET', '/v1/kv/get?key=k', { token: t }),
        await call(own, 'POST', '/v1/kv/set', { token: t, json: { key: 'k', value: 1 } }),
        await call(own, 'POST', '/v1/idempotency/claim', { token: t, json: { key: 'k' } }),
        await call(own, 'POST', '/v1/lock/acquire', { token: t, json: { name: 'l' } }),
      ]) {
        expect(r.status).toBe(503);
        expect((r.json as { error: string }).error).toMatch(/^state backend unavailable: /);
      }
      own.server.setStore(null);
      const r = await call(own, 'GET', '/v1/artifact/list', { token: t });
      expect(r).toMatchObject({
        status: 503,
        json: { error: 'state backend unavailable: the state store is not started' },
      });
      // Caller faults are still caller faults.
      expect((await call(own, 'GET', '/v1/kv/get', { token: t })).status).toBe(400);
      // Secrets never touch the store.
      expect((await call(own, 'GET', '/v1/secret/list', { token: t })).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});

const quiet = { debug: () => {}, info: () => {}, warning: () => {} };

describe('listen', () => {
  it('honours host:port and http://host:port, bracketing IPv6', async () => {
    const a = new JobApiServer({ store: kit.store, host: 'h', logger: quiet, listen: 'http://127.0.0.1:0' });
    await a.start();
    expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const port = Number(new URL(a.url).port);
    await a.stop();
    const b = new JobApiServer({ store: kit.store, host: 'h', logger: quiet, listen: `127.0.0.1:${port}` });
    await b.start();
    expect(b.url).toBe(`http://127.0.0.1:${port}`);
    await b.stop();
    const c = new JobApiServer({ store: kit.store, host: 'h', logger: quiet, listen: '[::1]:0' });
    try {
      await c.start();
    } catch {
      return; // no IPv6 loopback here
    }
    expect(c.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    const h = c.register({
      jobName: 'j',
      attempt: 0,
      scheduledAt: null,
      defaultScope: 'j',
      allowedScopes: [],
      secrets: {},
    });
    const r = await fetch(`${c.url}/v1/run`, { headers: { authorization: `Bearer ${h.token}` } });
    expect(r.status).toBe(200);
    await c.stop();
  });

  it('refuses an unsupported listen value', async () => {
    const s = new JobApiServer({ store: kit.store, host: 'h', logger: quiet, listen: 'unix:///tmp/x.sock' });
    await expect(s.start()).rejects.toThrow(/must be an http:\/\/ or https:\/\/ URL or a bare host:port/);
  });
});
