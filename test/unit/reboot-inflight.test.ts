// Spec 09 §9.5 in the small: the in-flight records of @reboot jobs and the survivor rule, over a
// real store file with a scripted process probe (the real daemons are in
// test/integration/reboot-survivor.test.ts).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobDigest } from '../../src/cluster/jobset.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { JobConfig } from '../../src/config/types.ts';
import { bootTimeOf, startTicksOf } from '../../src/exec/proc-start.ts';
import { InFlight, type InFlightProbe } from '../../src/scheduler/durable/inflight.ts';
import { openStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { storeScratch } from '../helpers/store-scratch.ts';
import { writeTree } from '../helpers/tmp.ts';

const { tempDir, keep } = storeScratch('inflight');

function jobs(): JobConfig[] {
  const dir = writeTree({
    'c.yaml':
      'jobs:\n  - name: boot\n    command: "true"\n    schedule: "@reboot"\n  - name: tick\n    command: "true"\n    schedule: "* * * * *"\n',
  });
  return loadConfig(join(dir, 'c.yaml'), { cwd: dir, euid: 0, env: {} }).jobs;
}

async function kit(probe: InFlightProbe) {
  const store = keep(
    await openStore({ path: tempDir(), namespace: 'default', topology: 'single-node', inline: true }),
  );
  const logs: string[] = [];
  const side = {
    store,
    clock: new FakeClock(Date.parse('2026-01-01T00:00:00Z')),
    log: {
      debug: () => {},
      info: (m: string) => logs.push(`INFO ${m}`),
      warning: (m: string) => logs.push(`WARNING ${m}`),
      error: (m: string) => logs.push(`ERROR ${m}`),
    } as never,
    host: 'h1',
    onStoreUnavailable: 'degrade' as const,
  };
  return { store, logs, side, make: () => new InFlight(side, jobDigest, probe) };
}

const settle = () => new Promise((r) => setTimeout(r, 50));
const kinds = async (store: Store, job: string) =>
  (await store.list(`inflight/${job}`)).map((r) => {
    const d = r.data as { kind: string; reason?: string };
    return d.reason ?? d.kind;
  });

describe('in-flight records of @reboot jobs', () => {
  it('opens at 0 -> 1 live runs and closes at 1 -> 0; other jobs write nothing', async () => {
    const { store, make } = await kit({ alive: () => false, startMs: () => null });
    const [boot, tick] = jobs() as [JobConfig, JobConfig];
    const f = make();
    f.runStarted(boot, 'r1', 100, Date.parse('2026-01-01T00:00:00Z'), false);
    f.runStarted(boot, 'r2', 101, Date.parse('2026-01-01T00:00:01Z'), false);
    f.runStarted(tick, 't1', 102, Date.parse('2026-01-01T00:00:01Z'), false);
    f.runFinished(boot, 'r1');
    f.runFinished(boot, 'r2');
    f.runFinished(tick, 't1');
    await settle();
    expect(await kinds(store, 'boot')).toEqual(['open', 'finished']);
    expect((await store.list('inflight/boot'))[0]?.data).toMatchObject({
      kind: 'open',
      host: 'h1',
      proc: f.proc,
      pid: 100,
      startedAt: '2026-01-01T00:00:00.000Z',
      jobDigest: jobDigest(boot),
    });
    expect(await kinds(store, 'tick')).toEqual([]);
  });

  it('a live survivor stands in for the boot run until it dies or its start time changes', async () => {
    let alive = true;
    let start: number | null = Date.parse('2026-01-01T00:00:30Z');
    const { store, logs, make } = await kit({ alive: () => alive, startMs: () => start });
    const [boot] = jobs() as [JobConfig];
    await store.append('inflight/boot', {
      kind: 'open',
      host: 'h1',
      proc: 'old',
      pid: 4242,
      startedAt: '2026-01-01T00:00:00.000Z',
    });
    const f = make();
    expect(await f.rebootSurvivor(boot)).toBe(4242);
    expect(await f.rebootSurvivor(boot)).toBe(4242);
    expect(logs.filter((l) => l.startsWith('WARNING'))).toEqual([
      "WARNING Job boot: the previous daemon's run (pid 4242) still appears to be running; leaving its in-flight record open",
    ]);
    start = Date.parse('2026-01-01T01:00:00Z');
    expect(await f.rebootSurvivor(boot)).toBeNull();
    start = Date.parse('2026-01-01T00:00:30Z');
    expect(await f.rebootSurvivor(boot)).toBeNull();

    const again = make();
    expect(await again.rebootSurvivor(boot)).toBe(4242);
    alive = false;
    expect(await again.rebootSurvivor(boot)).toBeNull();

    // A manual start claims the boot: the survivor is forgotten.
    alive = true;
    const manual = make();
    manual.runStarted(boot, 'm1', null, Date.now(), true);
    expect(await manual.rebootSurvivor(boot)).toBeNull();
    expect(await kinds(store, 'boot')).toEqual(['open']);
  });

  it('closes a recycled or dead pid as reconciled-crash; ignores its own, closed and foreign records', async () => {
    const recycledStart = Date.parse('2026-01-01T00:01:01Z');
    const { store, make } = await kit({ alive: (pid) => pid !== 9, startMs: () => recycledStart });
    const [boot] = jobs() as [JobConfig];
    const open = { kind: 'open', host: 'h1', proc: 'old', startedAt: '2026-01-01T00:00:00.000Z' };
    await store.append('inflight/boot', { ...open, pid: 7 });
    expect(await make().rebootSurvivor(boot)).toBeNull();
    await settle();
    expect(await kinds(store, 'boot')).toEqual(['open', 'reconciled-crash']);

    await store.append('inflight/boot', { ...open, pid: 9 });
    expect(await make().rebootSurvivor(boot)).toBeNull();
    await settle();
    expect(await kinds(store, 'boot')).toEqual(['open', 'reconciled-crash', 'open', 'reconciled-crash']);

    // Another host's open record, and this process's own, are never survivors.
    await store.append('inflight/boot', { ...open, host: 'h2', pid: 7 });
    expect(await make().rebootSurvivor(boot)).toBeNull();
    const own = make();
    await store.append('inflight/boot', {
      ...open,
      proc: own.proc,
      pid: 7,
      startedAt: '2026-01-01T00:01:00.000Z',
    });
    expect(await own.rebootSurvivor(boot)).toBeNull();
    expect(await make().rebootSurvivor(boot)).toBe(7);
  });
});

describe('process start time from /proc', () => {
  it('reads field 22 after the last parenthesis and btime', () => {
    const line = '1234 (a (b) c) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 98765 1000 200';
    expect(startTicksOf(line)).toBe(98765);
    expect(startTicksOf('garbage')).toBeNull();
    expect(bootTimeOf('cpu  1 2 3\nbtime 1700000000\nprocesses 5\n')).toBe(1_700_000_000);
    expect(bootTimeOf('cpu 1\n')).toBeNull();
  });
});
