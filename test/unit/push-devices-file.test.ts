// The single-node device registry (spec 10 §6.2): the file format, 0600 writes by rename, an
// unparsable file never overwritten, day-old temp files swept, one salt kept.
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PushDevice } from '../../src/report/push/device.ts';
import { DevicesFile } from '../../src/report/push/devices-file.ts';
import { writeTree } from '../helpers/tmp.ts';

const device = (id: string, createdAt: string): PushDevice => ({
  id,
  name: `phone ${id}`,
  platform: 'ios',
  publicKey: Buffer.alloc(32, 7).toString('base64'),
  pushToken: 'tok',
  createdAt,
  createdBy: null,
});

describe('devicesFile registry', () => {
  it('writes the documented shape with mode 0600 and lists by createdAt', async () => {
    const dir = writeTree({});
    const path = join(dir, 'devices.json');
    const reg = new DevicesFile(path);
    expect(await reg.list()).toEqual([]);
    await Promise.all([
      reg.put(device('b', '2026-01-02T00:00:00Z')),
      reg.put(device('a', '2026-01-01T00:00:00Z')),
    ]);
    const body = JSON.parse(readFileSync(path, 'utf8'));
    expect(body.version).toBe(1);
    expect(body.collapseSalt).toMatch(/^[0-9a-f]{32}$/);
    expect(body.devices).toHaveLength(2);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect((await reg.list()).map((d) => d.id)).toEqual(['a', 'b']);
    expect(await reg.salt()).toBe(body.collapseSalt);
    expect(await reg.remove('a')).toBe(true);
    expect(await reg.remove('a')).toBe(false);
    expect((await new DevicesFile(path).list()).map((d) => d.id)).toEqual(['b']);
    expect(readdirSync(dir)).toEqual(['devices.json']);
  });

  it('never overwrites a file it cannot parse', async () => {
    const dir = writeTree({ 'devices.json': '{"version":1,"devices":[' });
    const path = join(dir, 'devices.json');
    const reg = new DevicesFile(path);
    await expect(reg.list()).rejects.toThrow(/is not valid \(left untouched\)/);
    await expect(reg.put(device('x', '2026-01-01T00:00:00Z'))).rejects.toThrow(/left untouched/);
    expect(readFileSync(path, 'utf8')).toBe('{"version":1,"devices":[');
  });

  it('sweeps temp files older than a day, keeps younger ones', async () => {
    const dir = writeTree({});
    const path = join(dir, 'devices.json');
    const old = join(dir, '.devices.json.aaaaaaaaaaaa.tmp');
    const young = join(dir, '.devices.json.bbbbbbbbbbbb.tmp');
    writeFileSync(old, 'x');
    writeFileSync(young, 'y');
    const twoDaysAgo = (Date.now() - 2 * 86_400_000) / 1000;
    utimesSync(old, twoDaysAgo, twoDaysAgo);
    await new DevicesFile(path).put(device('a', '2026-01-01T00:00:00Z'));
    expect(readdirSync(dir).sort()).toEqual(['.devices.json.bbbbbbbbbbbb.tmp', 'devices.json']);
  });
});
