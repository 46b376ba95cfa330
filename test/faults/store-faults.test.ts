// Store faults against a real daemon (issue 14 items 1-2): the store file deleted, replaced,
// made read-only then writable, the disk filled then freed, the daemon killed mid-write. Each
// fault must be logged, and no write a job saw acknowledged may be missing from the store.
// The counter job prints `count=N` only after `cronstable state set` succeeded.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stateCheck } from '../../src/store/admin.ts';
import { openStore } from '../../src/store/index.ts';
import { type DaemonRun, startDaemonRun, stopDaemonRun } from '../helpers/daemon-run.ts';
import { waitFor } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';

const NS = 'faults';

const CONFIG = (state: string) => `state:
  path: ${state}
  topology: single-node
  deploymentId: ${NS}
web:
  listen:
    - http://127.0.0.1:0
defaults:
  captureStdout: true
jobs:
  - name: counter
    command: n=$(cronstable state get count --global) && cronstable state set count $((n+1)) --global && echo "count=$((n+1))"
    schedule: "* * * * * * *"
    concurrencyPolicy: Forbid
`;

const running: DaemonRun[] = [];
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const r of running.splice(0)) r.child.kill('SIGKILL');
  for (const c of cleanups.splice(0)) c();
});

function startDaemon(dir: string): DaemonRun {
  const run = startDaemonRun(join(dir, 'jobs.yaml'));
  running.push(run);
  return run;
}

const counts = (out: string) => [...out.matchAll(/count=(\d+)/g)].map((m) => Number(m[1]));
const lastCount = (out: string) => Math.max(0, ...counts(out));
const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

/** A store with `count` set, built elsewhere and closed (checkpointed: one file, no WAL). */
async function storeWithCount(path: string, count: number): Promise<string> {
  const store = await openStore({ path, namespace: NS, topology: 'single-node', inline: true });
  await store.kvSet('global', 'count', count);
  await store.close();
  return join(path, 'cronstable.db');
}

async function countIn(path: string): Promise<number> {
  const store = await openStore({ path, namespace: NS, topology: 'single-node', inline: true });
  try {
    return Number((await store.kvGet('global', 'count'))?.value);
  } finally {
    await store.close();
  }
}

/** A daemon whose counter has been acknowledged a few times. */
async function setup(): Promise<{ dir: string; state: string; db: string; run: DaemonRun }> {
  const dir = writeTree({});
  const state = join(dir, 'state');
  await storeWithCount(state, 0);
  writeFileSync(join(dir, 'jobs.yaml'), CONFIG(state));
  const run = startDaemon(dir);
  await waitFor(() => lastCount(run.out) >= 2, 20_000, 'the counter to run twice');
  return { dir, state, db: join(state, 'cronstable.db'), run };
}

function rmStoreFiles(db: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(db + suffix, { force: true });
}

describe('store faults under a running daemon', () => {
  it('a deleted store is never written silently, and one put back is used again', async () => {
    const { dir, state, db, run } = await setup();
    rmStoreFiles(db);
    await waitFor(() => run.err.includes('was deleted'), 10_000, 'the deletion to be logged');
    const ackedBefore = lastCount(run.out);
    const outAtDetection = run.out.length;
    // Several seconds of failing calls: logged once, no acknowledged write, no new empty store.
    await new Promise((r) => setTimeout(r, 3000));
    expect(occurrences(run.err, 'was deleted under the running daemon')).toBe(1);
    expect(counts(run.out.slice(outAtDetection))).toEqual([]);
    expect(existsSync(db)).toBe(false);

    // The operator puts a store back (a restore): the daemon reopens it and counts on from it.
    const spare = await storeWithCount(join(dir, 'spare'), 100);
    renameSync(spare, db);
    await waitFor(() => lastCount(run.out) >= 102, 15_000, 'the counter on the restored store');
    expect(run.err).toContain('is back');
    expect(ackedBefore).toBeLessThan(100);
    await stopDaemonRun(run);
    expect(await countIn(state)).toBeGreaterThanOrEqual(lastCount(run.out));
  }, 60_000);

  it('a replaced store is detected before the next write and reopened', async () => {
    const { dir, state, db, run } = await setup();
    const spare = await storeWithCount(join(dir, 'spare'), 500);
    rmStoreFiles(db);
    renameSync(spare, db);
    await waitFor(() => lastCount(run.out) >= 502, 15_000, 'the counter on the replacement');
    expect(run.err).toContain('was replaced');
    expect(run.err).toContain('is back');
    // Nothing acknowledged between the old store's last count and the replacement's 501.
    const seen = counts(run.out);
    const after = seen.slice(seen.indexOf(501));
    expect(after).toEqual(after.map((_, i) => 501 + i));
    await stopDaemonRun(run);
    expect(await countIn(state)).toBeGreaterThanOrEqual(lastCount(run.out));
  }, 60_000);

  it('a read-only store (immutable as root) fails calls, and is used again once writable', async () => {
    if (process.getuid?.() !== 0) return; // chattr needs root
    const { state, db, run } = await setup();
    // Root ignores mode bits; the immutable attribute refuses even root's writes on open fds.
    // Not on -shm: SQLite maps it, and a write fault on an immutable mapping is SIGBUS (a real
    // read-only remount is refused while the file is open for writing, so it cannot happen).
    const files = [db, `${db}-wal`, state].filter((f) => existsSync(f));
    const chattr = (flag: string) => execFileSync('chattr', [flag, ...files], { stdio: 'ignore' });
    chattr('+i');
    cleanups.push(() => {
      try {
        chattr('-i');
      } catch {
        // Already writable and removed.
      }
    });
    const before = lastCount(run.out);
    const outAtFault = run.out.length;
    const errAtFault = run.err.length;
    await new Promise((r) => setTimeout(r, 3000));
    const during = counts(run.out.slice(outAtFault));
    chattr('-i');
    // A run that had already passed its write may print once; no write is acknowledged after.
    expect(during.length).toBeLessThanOrEqual(1);
    expect(run.err.slice(errAtFault)).toMatch(/ledger failed: .*disk I\/O error/);
    await waitFor(() => lastCount(run.out) >= before + 3, 15_000, 'the counter after the store is writable');
    await stopDaemonRun(run);
    expect(await countIn(state)).toBeGreaterThanOrEqual(lastCount(run.out));
  }, 60_000);

  it('a full disk fails calls, and the store is used again once space is freed', async () => {
    if (process.getuid?.() !== 0) return; // mounting a small tmpfs needs root
    const dir = writeTree({});
    const state = join(dir, 'state');
    mkdirSync(state);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', state]);
    } catch {
      return; // no mount in this sandbox: the README says so
    }
    cleanups.push(() => execFileSync('umount', ['-l', state]));
    await storeWithCount(state, 0);
    writeFileSync(join(dir, 'jobs.yaml'), CONFIG(state));
    const run = startDaemon(dir);
    await waitFor(() => lastCount(run.out) >= 2, 20_000, 'the counter to run twice');
    const filler = join(state, 'filler');
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=16k'], { stdio: 'ignore' });
    } catch {
      // dd stops on ENOSPC: the disk is full now.
    }
    const outAtFault = run.out.length;
    const errAtFault = run.err.length;
    await new Promise((r) => setTimeout(r, 3000));
    const during = counts(run.out.slice(outAtFault));
    const logged = run.err.slice(errAtFault);
    rmSync(filler);
    expect(during.length).toBeLessThanOrEqual(1);
    expect(logged).toMatch(/ledger failed: .*(full|I\/O)/);
    const before = lastCount(run.out);
    await waitFor(() => lastCount(run.out) >= before + 3, 15_000, 'the counter after space is freed');
    await stopDaemonRun(run);
    expect(await countIn(state)).toBeGreaterThanOrEqual(lastCount(run.out));
  }, 60_000);

  it('the daemon warns at start when the store directory is not writable', async () => {
    if (process.getuid?.() !== 0) return; // chattr needs root
    const { dir, state, run } = await setup();
    // kill -9 leaves -wal and -shm behind, so a restart opens without creating a file.
    run.child.kill('SIGKILL');
    await run.exit;
    execFileSync('chattr', ['+i', state]);
    cleanups.push(() => {
      try {
        execFileSync('chattr', ['-i', state], { stdio: 'ignore' });
      } catch {
        // Already writable and removed.
      }
    });
    const again = startDaemon(dir);
    await waitFor(() => /store directory .* is not writable/.test(again.err), 15_000, 'the warning');
    expect(again.err).toMatch(/WARNING.*store directory .* is not writable/);
    execFileSync('chattr', ['-i', state]);
    const before = lastCount(again.out);
    await waitFor(() => lastCount(again.out) >= Math.max(before, 1) + 2, 15_000, 'counting on');
    await stopDaemonRun(again);
  }, 60_000);

  it('state check on a missing store is an error, not a new empty database', async () => {
    const dir = writeTree({});
    const state = join(dir, 'state');
    const r = await stateCheck({ path: state, namespace: NS, topology: 'single-node' });
    expect(r.ok).toBe(false);
    expect(r.lines.join('\n')).toContain(`no store at ${join(state, 'cronstable.db')}`);
    expect(existsSync(join(state, 'cronstable.db'))).toBe(false);
  });

  it('kill -9 mid-write loses no acknowledged write', async () => {
    const { state, run } = await setup();
    await waitFor(() => lastCount(run.out) >= 4, 20_000, 'more counts');
    run.child.kill('SIGKILL');
    await run.exit;
    const acked = lastCount(run.out);
    expect((await stateCheck({ path: state, namespace: NS, topology: 'single-node' })).integrity).toBe('ok');
    expect(await countIn(state)).toBeGreaterThanOrEqual(acked);
  }, 60_000);
});
