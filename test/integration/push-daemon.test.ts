// Phone alerts on a real daemon (spec 10 §6, issue 35): a failing job's push report reaches a relay
// the test runs, sealed so that only the paired device's private key (made here with libsodium)
// opens it; a relay that never answers delays neither the job's webhook nor its next fire; the
// device routes by scope; the devicesFile across a restart; vector 50 whole.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import sodium from 'libsodium-wrappers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { stopChild } from '../helpers/child.ts';
import { type E2eDaemon, startE2eDaemon } from '../helpers/e2e-daemon.ts';
import { scopedTokensYaml } from '../helpers/scoped-tokens.ts';
import { httpSink } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

type Json = Record<string, unknown>;

interface RelayHit {
  body: Json;
  at: number;
}

/** A relay on loopback: 200 for most devices, 410 for `reject`, no answer at all for `hang`. */
async function startRelay() {
  const hits: RelayHit[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
      hits.push({ body, at: Date.now() });
      if (body.device === 'hang') held.push(res);
      else if (body.device === 'reject') res.writeHead(410).end('device gone');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"queued":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    held,
    close: () => {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const keys: { publicKey: Uint8Array; privateKey: Uint8Array }[] = [];
const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64');

function open(ciphertext: string, pair: { publicKey: Uint8Array; privateKey: Uint8Array }): Json {
  const plain = sodium.crypto_box_seal_open(
    Buffer.from(ciphertext, 'base64'),
    pair.publicKey,
    pair.privateKey,
  );
  return JSON.parse(Buffer.from(plain).toString('utf8')) as Json;
}

async function call(base: string, method: string, path: string, token?: string, body?: unknown) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Json | null = null;
  try {
    json = JSON.parse(text) as Json;
  } catch {}
  return { status: res.status, json, text };
}

describe('push alerts on a real daemon (spec 10 §6.3, §6.4)', () => {
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let hook: Awaited<ReturnType<typeof httpSink>>;
  let dir: string;
  let base: string;
  let port: number;
  let daemon: E2eDaemon | null = null;
  const devices = () => join(dir, 'devices.json');

  const config = () => `web:
  listen:
    - http://127.0.0.1:${port}
  authToken:
    value: admin
${scopedTokensYaml()}push:
  relay:
    url: http://relay-user:relay-pass@127.0.0.1:${relay.port}/v1/alert
    timeout: 30
  devicesFile: ${devices()}
jobs:
  - name: boom
    command: "echo first line >&2; echo oops >&2; exit 3"
    schedule: "0 0 1 1 *"
    onFailure:
      report:
        push:
          enabled: true
  - name: tick
    command: "exit 1"
    schedule:
      second: "*/2"
    onFailure:
      report:
        push:
          enabled: true
          priority: passive
        webhook:
          url:
            value: http://127.0.0.1:${hook.port}/hook
`;

  const start = async () => {
    daemon = await startE2eDaemon(dir, { base, ready: async (b) => (await fetch(`${b}/version`)).ok });
  };

  beforeAll(async () => {
    await sodium.ready;
    for (let i = 0; i < 3; i++) keys.push(sodium.crypto_box_keypair());
    relay = await startRelay();
    hook = await httpSink();
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    dir = writeTree({}, true);
    writeFileSync(join(dir, 'cronstable.yaml'), config());
    await start();
  }, 40_000);

  afterAll(async () => {
    await stopChild(daemon?.child);
    await relay?.close();
    await hook?.close();
  });

  const pair = (token: string, pushToken: string, key: Uint8Array, name = 'phone') =>
    call(base, 'POST', '/push/devices', token, { name, platform: 'ios', publicKey: b64(key), pushToken });

  it('serves the registry by scope: never anonymously, view reads, control pairs and revokes', async () => {
    expect(await call(base, 'GET', '/push/devices')).toMatchObject({
      status: 403,
      json: {
        error: "the device registry is not served anonymously; present a bearer token with the 'view' scope",
      },
    });
    expect((await call(base, 'GET', '/push/devices', 'wrong')).status).toBe(401);
    expect(await call(base, 'GET', '/push/devices', 'viewtok')).toMatchObject({
      status: 200,
      json: { devices: [] },
    });
    expect(await pair('viewtok', 'tok', keys[0]!.publicKey)).toMatchObject({
      status: 403,
      json: { error: "token 'wall' lacks the 'control' scope required for this endpoint" },
    });
    expect((await call(base, 'POST', '/push/devices', undefined, {})).status).toBe(403);
    const made = await pair('ctltok', 'device-token-0001', keys[0]!.publicKey);
    expect(made.status).toBe(201);
    const device = (made.json as { device: Json }).device;
    expect(device).toMatchObject({ name: 'phone', platform: 'ios', pushToken: '…n-0001', createdBy: 'ci' });
    expect(device.fingerprint).toMatch(/^[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}$/);
    expect(device.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const onDisk = JSON.parse(readFileSync(devices(), 'utf8'));
    expect(onDisk).toMatchObject({
      version: 1,
      devices: [{ id: device.id, pushToken: 'device-token-0001' }],
    });
    expect(statSync(devices()).mode & 0o777).toBe(0o600);

    // A device the relay refuses: the test route answers 502 with the relay's words; then revoke it.
    const gone = (await pair('admin', 'reject', keys[1]!.publicKey, 'old phone')).json as { device: Json };
    const test = await call(base, 'POST', `/push/devices/${gone.device.id}/test`, 'ctltok');
    expect(test).toMatchObject({
      status: 502,
      json: { device: gone.device.id, status: 410, error: 'relay HTTP 410: device gone' },
    });
    expect((await call(base, 'DELETE', `/push/devices/${gone.device.id}`, 'viewtok')).status).toBe(403);
    expect(await call(base, 'DELETE', `/push/devices/${gone.device.id}`, 'ctltok')).toMatchObject({
      status: 200,
      json: { revoked: gone.device.id },
    });
    expect(await call(base, 'DELETE', `/push/devices/${gone.device.id}`, 'ctltok')).toMatchObject({
      status: 404,
      json: { error: `no paired device with id '${gone.device.id}'` },
    });
    expect((await call(base, 'POST', '/push/devices/nope/test', 'ctltok')).status).toBe(404);

    // The test alert reaches the relay with Basic credentials and opens with the device's key.
    const ok = await call(base, 'POST', `/push/devices/${device.id}/test`, 'ctltok');
    expect(ok).toMatchObject({ status: 200, json: { device: device.id, status: 200, error: null } });
    // tick's own alerts reach this device too (every 2 s): pick the test alert among them.
    const opened = relay.hits
      .filter((h) => h.body.device === 'device-token-0001')
      .map((h) => open(h.body.ciphertext as string, keys[0]!));
    expect(opened.find((p) => p.kind === 'test')).toMatchObject({
      v: 1,
      kind: 'test',
      name: 'test',
      success: true,
      message: 'test alert from cronstable',
    });
    expect(daemon!.logs()).not.toContain('relay-pass');
  });

  it('delivers one sealed alert for a failing job, with the documented fields', async () => {
    const before = relay.hits.length;
    expect((await call(base, 'POST', '/jobs/boom/start', 'ctltok')).status).toBe(200);
    const boomHits = () =>
      relay.hits
        .slice(before)
        .filter((h) => h.body.device === 'device-token-0001')
        .map((h) => ({ body: h.body, plain: open(h.body.ciphertext as string, keys[0]!) }))
        .filter((h) => h.plain.name === 'boom');
    const [first] = await until('the boom alert at the relay', 20_000, async () =>
      boomHits().length > 0 ? boomHits() : null,
    );
    expect(first!.body).toMatchObject({
      v: 1,
      device: 'device-token-0001',
      priority: 'time-sensitive',
      event: false,
    });
    expect(first!.body.collapseId).toMatch(/^[0-9a-f]{32}$/);
    expect((first!.body.ciphertext as string).length).toBeLessThanOrEqual(3000);
    expect(first!.plain).toMatchObject({
      v: 1,
      kind: 'failure',
      name: 'boom',
      success: false,
      exit_code: 3,
      log_tail: 'first line\noops',
      schedule: '0 0 1 1 *',
    });
    expect(first!.plain.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(typeof first!.plain.host).toBe('string');
    expect(typeof first!.plain.run_id).toBe('string');
    expect(typeof first!.plain.fail_reason).toBe('string');
    // Exactly one: the job's own run report line is logged once its reporters settled.
    await until('the boom report to be logged', 10_000, async () =>
      daemon!.logs().includes('Cron job boom: reporting failure') ? true : null,
    );
    expect(boomHits()).toHaveLength(1);
  });

  it('a relay that never answers delays neither the webhook nor the next fire', async () => {
    // A second device whose relay POSTs hang for the whole relay.timeout (30 s).
    expect((await pair('ctltok', 'hang', keys[2]!.publicKey, 'hung phone')).status).toBe(201);
    await until('a held relay request', 15_000, async () => (relay.held.length > 0 ? true : null));
    const from = hook.hits.length;
    const t0 = Date.now();
    // tick fires every 2 s: three more webhook reports well inside one relay timeout.
    await until('three more tick webhooks', 12_000, async () => (hook.hits.length >= from + 3 ? true : null));
    expect(Date.now() - t0).toBeLessThan(12_000);
    expect(relay.held.length).toBeGreaterThanOrEqual(2);
    // The passive priority of tick's block reaches the relay.
    expect(relay.hits.some((h) => h.body.device === 'hang' && h.body.priority === 'passive')).toBe(true);
  });

  it('keeps the devicesFile across a restart', async () => {
    const listed = (await call(base, 'GET', '/push/devices', 'viewtok')).json as { devices: Json[] };
    expect(listed.devices.map((d) => d.name)).toEqual(['phone', 'hung phone']);
    await stopChild(daemon?.child);
    await start();
    const again = (await call(base, 'GET', '/push/devices', 'viewtok')).json as { devices: Json[] };
    expect(again.devices).toEqual(listed.devices);
  }, 40_000);
});

describe('vector 50 (Setup P + push, then without push)', () => {
  let dir: string;
  let base: string;
  let daemon: E2eDaemon | null = null;
  let withoutPush = '';
  const setupP = (port: number, push: string) => `web:
  listen:
    - http://127.0.0.1:${port}
${push}jobs:
  - name: tick
    command: "echo hi"
    schedule: "* * * * *"
  - name: slow
    command: "sleep 30"
    schedule: "0 0 1 1 *"
  - name: off
    command: "true"
    schedule: "0 0 1 1 *"
    enabled: false
`;

  beforeAll(async () => {
    await sodium.ready;
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    dir = writeTree({}, true);
    const push = `push:\n  relay:\n    url: https://u:p@r.example/x\n  devicesFile: ${join(dir, 'd.json')}\n`;
    writeFileSync(join(dir, 'cronstable.yaml'), setupP(port, push));
    daemon = await startE2eDaemon(dir, { base });
    withoutPush = setupP(port, '');
  }, 30_000);

  afterAll(async () => {
    await stopChild(daemon?.child);
  });

  it('answers every row of vector 50', async () => {
    expect((await call(base, 'GET', '/whoami')).json).toMatchObject({
      pairLinkBase: 'https://r.example/pair',
    });
    const zero = await call(base, 'POST', '/push/devices', undefined, {
      name: 'p',
      platform: 'android',
      publicKey: b64(new Uint8Array(32)),
      pushToken: 'abcdefghijkl',
    });
    expect(zero).toMatchObject({
      status: 400,
      json: { error: 'publicKey is not a usable X25519 public key' },
    });
    const key = sodium.crypto_box_keypair().publicKey;
    const body = { name: 'p', platform: 'android', publicKey: b64(key), pushToken: 'abcdefghijkl' };
    const first = await call(base, 'POST', '/push/devices', undefined, body);
    const second = await call(base, 'POST', '/push/devices', undefined, { ...body, name: 'renamed' });
    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    const a = first.json as { device: Json; created: boolean };
    const b = second.json as { device: Json; created: boolean };
    expect([a.created, b.created]).toEqual([true, false]);
    expect(b.device).toEqual({ ...a.device, name: 'renamed' });
    const list = (await call(base, 'GET', '/push/devices')).json as { devices: Json[] };
    expect(list.devices).toHaveLength(1);
    expect(list.devices[0]).toMatchObject({ id: a.device.id, pushToken: '…ghijkl', createdBy: null });
    expect(list.devices[0]!.fingerprint).toMatch(/^[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}$/);

    // The 400 texts in their order.
    const bad = async (b: unknown) =>
      ((await call(base, 'POST', '/push/devices', undefined, b)).json as Json).error;
    expect(await bad('{not json')).toBe('request body is not valid JSON');
    expect(await bad([1])).toBe('request body must be a JSON object');
    expect(await bad({ ...body, name: ' ' })).toBe('name is required');
    expect(await bad({ ...body, platform: 'p'.repeat(33) })).toBe('platform is longer than 32 characters');
    expect(await bad({ ...body, pushToken: undefined })).toBe('pushToken is required');
    expect(await bad({ ...body, publicKey: '' })).toBe('publicKey is required (base64 X25519 key)');
    expect(await bad({ ...body, publicKey: 'not base64!' })).toBe('publicKey is not valid base64');
    expect(await bad({ ...body, publicKey: b64(new Uint8Array(16)) })).toBe(
      'publicKey must decode to exactly 32 bytes, got 16',
    );

    // Without push: (a reload that drops the section) the routes still exist and answer 404.
    writeFileSync(join(dir, 'cronstable.yaml'), withoutPush);
    daemon!.child.kill('SIGHUP');
    await until('the reload to drop push', 15_000, async () =>
      (await call(base, 'GET', '/push/devices')).status === 404 ? true : null,
    );
    expect((await call(base, 'GET', '/push/devices')).json).toEqual({
      error: 'no `push:` section is configured on this daemon',
    });
    expect((await call(base, 'GET', '/whoami')).json).toMatchObject({
      pairLinkBase: 'https://relay.cronstable.com/pair',
    });
  });
});
