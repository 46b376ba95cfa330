// The device registry over HTTP (spec 10 §6.4): list, pair, revoke and test. Checks in the spec's
// order; the registry is read from its home on every call (the reporters read a mirror).
import { createHash, randomBytes } from 'node:crypto';
import type { PushDevice } from '../report/push/device.ts';
import { isoSeconds, testAlert } from '../report/push/payload.ts';
import { usablePublicKey } from '../report/push/seal.ts';
import type { PushService } from '../report/push/service.ts';
import { errorText } from '../util/errors.ts';
import type { ApiDeps } from './deps.ts';
import { type ApiResult, fail, ok } from './types.ts';

export const NO_PUSH = 'no `push:` section is configured on this daemon';
export const STORE_TROUBLE =
  "the device registry's store is unavailable; the reason is in the cronstable log";

/** A device as the API shows it: the token shortened, the key's fingerprint added. */
export interface PublicDevice {
  id: string;
  name: string;
  platform: string;
  publicKey: string;
  fingerprint: string;
  pushToken: string;
  createdAt: string;
  createdBy: string | null;
}

/** First 12 hex of SHA-256 of the raw key, as `xxxx-xxxx-xxxx`. */
export function keyFingerprint(publicKey: string): string {
  const hex = createHash('sha256').update(Buffer.from(publicKey, 'base64')).digest('hex').slice(0, 12);
  return `${hex.slice(0, 4)}-${hex.slice(4, 8)}-${hex.slice(8, 12)}`;
}

export function publicDevice(d: PushDevice): PublicDevice {
  return {
    id: d.id,
    name: d.name,
    platform: d.platform,
    publicKey: d.publicKey,
    fingerprint: keyFingerprint(d.publicKey),
    pushToken: d.pushToken === '' ? '' : `…${d.pushToken.slice(-6)}`,
    createdAt: d.createdAt,
    createdBy: d.createdBy,
  };
}

/** The running push channel; 404 without a section, 503 when its registry could not open. */
function channel(d: ApiDeps): ApiResult<PushService> {
  const push = d.ctx.push?.() ?? null;
  if (push === null) return fail(404, NO_PUSH);
  if (push === 'unavailable') return fail(503, STORE_TROUBLE);
  return ok(push);
}

/** A registry call, its failure logged and answered as 503. */
async function guarded<T>(d: ApiDeps, what: string, call: () => Promise<T>): Promise<ApiResult<T>> {
  try {
    return ok(await call());
  } catch (e) {
    d.log.error(`push: ${what} failed: ${errorText(e)}`);
    return fail(503, STORE_TROUBLE);
  }
}

export async function listDevices(d: ApiDeps): Promise<ApiResult<{ devices: PublicDevice[] }>> {
  const ch = channel(d);
  if (!ch.ok) return ch;
  const r = await guarded(d, 'reading the device registry', () => ch.body.registry.list());
  return r.ok ? ok({ devices: r.body.map(publicDevice) }) : r;
}

const LIMITS = { name: 64, platform: 32, pushToken: 512 } as const;

interface PairFields {
  name: string;
  platform: string;
  pushToken: string;
  publicKey: string;
}

/** The body's fields, trimmed and checked in the order name, platform, pushToken, publicKey. */
export async function pairFields(text: string): Promise<ApiResult<PairFields>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail(400, 'request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail(400, 'request body must be a JSON object');
  const body = value as Record<string, unknown>;
  const out: Partial<PairFields> = {};
  for (const field of ['name', 'platform', 'pushToken'] as const) {
    const v = typeof body[field] === 'string' ? (body[field] as string).trim() : '';
    if (v === '') return fail(400, `${field} is required`);
    if (v.length > LIMITS[field]) return fail(400, `${field} is longer than ${LIMITS[field]} characters`);
    out[field] = v;
  }
  const key = typeof body.publicKey === 'string' ? body.publicKey.trim() : '';
  if (key === '') return fail(400, 'publicKey is required (base64 X25519 key)');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) && !/^[A-Za-z0-9_-]+$/.test(key))
    return fail(400, 'publicKey is not valid base64');
  const raw = Buffer.from(key, 'base64');
  if (raw.length !== 32) return fail(400, `publicKey must decode to exactly 32 bytes, got ${raw.length}`);
  if (!(await usablePublicKey(raw))) return fail(400, 'publicKey is not a usable X25519 public key');
  return ok({ ...(out as PairFields), publicKey: raw.toString('base64') });
}

/** Pairs a device, or updates the one already paired with the same key (spec 10 §6.4). */
export async function pairDevice(
  d: ApiDeps,
  text: string,
  caller: string | null,
): Promise<ApiResult<{ device: PublicDevice; created: boolean }>> {
  const ch = channel(d);
  if (!ch.ok) return ch;
  const fields = await pairFields(text);
  if (!fields.ok) return fields;
  const service = ch.body;
  const existing = await guarded(d, 'reading the device registry', () => service.registry.list());
  if (!existing.ok) return existing;
  const same = existing.body.find((x) => x.publicKey === fields.body.publicKey);
  const device: PushDevice = same
    ? { ...same, name: fields.body.name, platform: fields.body.platform, pushToken: fields.body.pushToken }
    : {
        id: randomBytes(8).toString('hex'),
        ...fields.body,
        createdAt: isoSeconds(d.ctx.clock.now()),
        createdBy: caller,
      };
  const put = await guarded(d, 'writing the device registry', () => service.registry.put(device));
  if (!put.ok) return put;
  service.invalidate();
  d.log.info(
    `push: device ${device.id} (${device.name}, ${device.platform}) ${same ? 'updated' : 'paired'} by ${caller ?? 'a caller without a token'}`,
  );
  return ok({ device: publicDevice(device), created: !same });
}

export async function revokeDevice(
  d: ApiDeps,
  id: string,
  caller: string | null,
): Promise<ApiResult<{ revoked: string }>> {
  const ch = channel(d);
  if (!ch.ok) return ch;
  const r = await guarded(d, 'writing the device registry', () => ch.body.registry.remove(id));
  if (!r.ok) return r;
  if (!r.body) return fail(404, `no paired device with id '${id}'`);
  ch.body.invalidate();
  d.log.info(`push: device ${id} revoked by ${caller ?? 'a caller without a token'}`);
  return ok({ revoked: id });
}

export interface TestOutcome {
  device: string;
  status: number | null;
  error: string | null;
}

/** Sends the test alert to one device; a relay refusal is still a body (the route answers 502). */
export async function testDevice(d: ApiDeps, id: string): Promise<ApiResult<TestOutcome>> {
  const ch = channel(d);
  if (!ch.ok) return ch;
  const r = await guarded(d, 'reading the device registry', () => ch.body.registry.list());
  if (!r.ok) return r;
  const device = r.body.find((x) => x.id === id);
  if (!device) return fail(404, `no paired device with id '${id}'`);
  const bytes = Buffer.from(JSON.stringify(testAlert(d.ctx.hostname, d.ctx.clock.now())), 'utf8');
  const outcome = await ch.body.deliver(device, bytes, randomBytes(16).toString('hex'), {
    priority: 'time-sensitive',
    event: false,
  });
  if (outcome.error) d.log.warning(`push: test delivery to device ${id} failed: ${outcome.error}`);
  return ok({ device: id, status: outcome.status, error: outcome.error });
}
