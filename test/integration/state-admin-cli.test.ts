// `cronstable state check|gc|backup|restore|migrate` through the built CLI on a real store.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { writeTree } from '../helpers/tmp.ts';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'cronstable.mjs');
const cli = (...args: string[]) => {
  const r = spawnSync(process.execPath, [BUNDLE, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

function setup(extra = '') {
  const dir = writeTree({});
  const conf = join(dir, 'c.yaml');
  writeFileSync(
    conf,
    `state:\n  path: ${join(dir, 'state')}\n  topology: single-node\n  deploymentId: prod\n  gcGraceSeconds: 86400\n${extra}jobs:\n  - name: keep\n    command: x\n    schedule: "0 0 1 1 *"\n`,
  );
  return { dir, conf, statePath: join(dir, 'state') };
}

async function seed(path: string, namespace = 'prod') {
  const store = await openStore({
    path,
    namespace,
    topology: 'single-node',
    inline: true,
    now: () => Date.now() - 3 * 86400_000,
  });
  await store.append('runs/keep', { outcome: 'success', finished_at: '2026-01-01T00:00:00Z' });
  await store.append('runs/gone-job', { outcome: 'failure', finished_at: '2026-01-01T00:00:00Z' });
  await store.kvSet('global', 'count', 41);
  await store.cursorAdvance('orders', 'watermark', '2026-07-05T09:00:00Z', false);
  const lease = await store.leaseAcquire('lock/global/nightly#0', 'host-a#1#x', 30);
  await store.leaseRelease(lease!);
  await store.leaseAcquire('lock/global/nightly#0', 'host-b#2#y', 30);
  await store.close();
}

describe('state admin CLI', () => {
  it('checks a store: writability, integrity and record counts per kind', async () => {
    const { conf, statePath } = setup();
    await seed(statePath);
    const r = cli('-c', conf, 'state', 'check');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`state: store at ${statePath} is writable`);
    expect(r.out).toMatch(/runs: 2 record\(s\)/);
    const after = cli('state', 'check', '-c', conf);
    expect(after.code).toBe(0);
  });

  it('previews and runs gc of jobs that left the config', async () => {
    const { conf, statePath } = setup();
    await seed(statePath);
    const dry = cli('-c', conf, 'state', 'gc', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('would remove');
    expect(dry.out).toContain('runs/gone-job');
    expect(dry.out).not.toContain('runs/keep');
    const real = cli('-c', conf, 'state', 'gc');
    expect(real.code).toBe(0);
    expect(real.out).toContain('removed');
    const store = await openStore({
      path: statePath,
      namespace: 'prod',
      topology: 'single-node',
      inline: true,
    });
    expect(await store.list('runs/gone-job')).toHaveLength(0);
    expect(await store.list('runs/keep')).toHaveLength(1);
    await store.close();
  });

  it('backs up, refuses to restore over data without --force, and round-trips', async () => {
    const { conf, statePath, dir } = setup();
    await seed(statePath);
    const file = join(dir, 'backup.tar.gz');
    const b = cli('-c', conf, 'state', 'backup', '-o', file);
    expect(b.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(cli('-c', conf, 'state', 'restore', file).code).toBe(1);
    const other = setup();
    const r = cli('-c', other.conf, 'state', 'restore', file);
    expect(r.code).toBe(0);
    const store = await openStore({
      path: other.statePath,
      namespace: 'prod',
      topology: 'single-node',
      inline: true,
    });
    expect((await store.kvGet('global', 'count'))!.value).toBe(41);
    expect((await store.cursorGet('orders', 'watermark'))!.value).toBe('2026-07-05T09:00:00Z');
    expect((await store.leaseRead('lock/global/nightly#0'))!.fence).toBe(2);
    await store.close();
    expect(cli('-c', conf, 'state', 'restore', file, '--force').code).toBe(0);
  });

  it('migrates to another path and refuses the same one', async () => {
    const { conf, statePath, dir } = setup();
    await seed(statePath);
    expect(cli('-c', conf, 'state', 'migrate', '--dest', statePath).code).toBe(1);
    const dest = join(dir, 'moved');
    const m = cli('-c', conf, 'state', 'migrate', '--dest', dest, '--dest-deployment-id', 'prod2');
    expect(m.code).toBe(0);
    expect(existsSync(join(dest, 'cronstable.db'))).toBe(true);
    const store = await openStore({ path: dest, namespace: 'prod2', topology: 'single-node', inline: true });
    expect((await store.kvGet('global', 'count'))!.value).toBe(41);
    await store.close();
  });

  it('spec 09 §9.7: the gc deferred note is a summary on stdout, nothing on stderr', async () => {
    const { conf, statePath } = setup();
    const store = await openStore({
      path: statePath,
      namespace: 'prod',
      topology: 'single-node',
      inline: true,
    });
    await store.append('manifests/host-a', { jobs: ['keep'] });
    await store.close();
    const r = cli('-c', conf, 'state', 'gc');
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toMatch(
      /^state: gc deferred: manifest history spans \d+s, less than the grace window \(86400s\)\n$/,
    );
  });

  it('reports usage errors with exit 2 and config problems with exit 1', () => {
    const { conf } = setup();
    expect(cli('-c', conf, 'state').code).toBe(2);
    expect(cli('-c', conf, 'state', 'backup').code).toBe(2);
    const dir = writeTree({
      'plain.yaml': 'jobs:\n  - name: a\n    command: x\n    schedule: "* * * * *"\n',
    });
    const r = cli('-c', join(dir, 'plain.yaml'), 'state', 'check');
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('cronstable state error: the configuration at');
  });
});
