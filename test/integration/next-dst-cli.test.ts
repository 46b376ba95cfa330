// Issue 15: `cronstable next` with a DST policy, through the built bundle as a real process.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeTree } from '../helpers/tmp.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BUNDLE = join(ROOT, 'dist', 'cronstable.mjs');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [BUNDLE, 'next', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout.trim().split('\n').filter(Boolean), err: r.stderr };
}

beforeAll(() => {
  if (!existsSync(BUNDLE))
    expect(spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' }).status).toBe(0);
});

const FALL = ['30 1 * * *', '--tz', 'America/New_York', '--after', '2026-10-31T12:00:00Z', '-n', '3'];

describe('cronstable next --dst-repeated / --dst-skipped', () => {
  it('fall-back night: first (default), last, both', () => {
    expect(cli(...FALL).out).toEqual([
      '2026-11-01T05:30:00Z',
      '2026-11-02T06:30:00Z',
      '2026-11-03T06:30:00Z',
    ]);
    expect(cli(...FALL, '--dst-repeated', 'first').out).toEqual(cli(...FALL).out);
    expect(cli(...FALL, '--dst-repeated', 'last').out).toEqual([
      '2026-11-01T06:30:00Z',
      '2026-11-02T06:30:00Z',
      '2026-11-03T06:30:00Z',
    ]);
    expect(cli(...FALL, '--dst-repeated=both').out).toEqual([
      '2026-11-01T05:30:00Z',
      '2026-11-01T06:30:00Z',
      '2026-11-02T06:30:00Z',
    ]);
  });

  it('spring-forward: shift (default) fires 03:30 EDT, skip drops the day', () => {
    const args = ['30 2 * * *', '--tz', 'America/New_York', '--after', '2026-03-07T12:00:00Z', '-n', '2'];
    expect(cli(...args).out).toEqual(['2026-03-08T07:30:00Z', '2026-03-09T06:30:00Z']);
    expect(cli(...args, '--dst-skipped', 'skip').out).toEqual([
      '2026-03-09T06:30:00Z',
      '2026-03-10T06:30:00Z',
    ]);
  });

  it('bad values exit 2 with a clear message', () => {
    const r = cli(...FALL, '--dst-repeated', 'twice');
    expect(r.code).toBe(2);
    expect(r.err).toContain("invalid --dst-repeated value 'twice': expected one of first, last, both");
    const s = cli(...FALL, '--dst-skipped', 'later');
    expect(s.code).toBe(2);
    expect(s.err).toContain("invalid --dst-skipped value 'later': expected one of shift, skip");
    expect(cli(...FALL, '--dst-skipped').err).toContain("option '--dst-skipped' needs a value");
  });

  it('--job uses the job or DAG policy from the config; --dst-* overrides it', () => {
    const dir = writeTree({
      'conf.yaml':
        'defaults:\n  dst:\n    skipped: skip\n' +
        'jobs:\n  - name: settle-ledger\n    command: "true"\n    schedule: "30 1 * * *"\n    timezone: America/New_York\n    dst:\n      repeated: last\n',
    });
    const conf = join(dir, 'conf.yaml');
    const after = ['--after', '2026-10-31T12:00:00Z', '-n', '2'];
    expect(cli('--job', 'settle-ledger', '-c', conf, ...after).out).toEqual([
      '2026-11-01T06:30:00Z',
      '2026-11-02T06:30:00Z',
    ]);
    expect(cli('--job', 'settle-ledger', '-c', conf, ...after, '--dst-repeated', 'both').out).toEqual([
      '2026-11-01T05:30:00Z',
      '2026-11-01T06:30:00Z',
    ]);
    const missing = cli('--job', 'nope', '-c', conf);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("no job or DAG named 'nope'");
    expect(cli('--job', 'settle-ledger').err).toContain('--job needs the configuration: -c FILE|DIR');
    expect(cli('0 * * * *', '--job', 'settle-ledger', '-c', conf).err).toContain('not both');
  });
});
