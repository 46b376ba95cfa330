// exec through the spawner process (launch's choice during a burst where perl exists): the same
// suite, plus what happens when the spawner cannot start or dies, and the set of them a burst uses.

import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { FailsWhen } from '../../src/config/types.ts';
import { type LaunchSpec, launch, SpawnerProcess, SpawnerSet, spawnInThread } from '../../src/exec/index.ts';
import { spawnerScript } from '../../src/exec/spawner-script.ts';
import { execSuite } from './exec-suite.ts';

const spawner = new SpawnerProcess({ idleMs: 1000 });
afterAll(() => spawner.close());

execSuite('spawner-process spawn', spawner.spawn);

const FAILS_WHEN: FailsWhen = {
  producesStdout: false,
  producesStderr: true,
  nonzeroReturn: true,
  always: false,
};

function spec(command: string): LaunchSpec {
  return {
    name: 'job',
    command,
    shell: '/bin/sh',
    captureStdout: true,
    captureStderr: true,
    saveLimit: 4096,
    maxLineLength: 1024 * 1024,
    streamPrefix: '',
    failsWhen: FAILS_WHEN,
    executionTimeout: null,
    killTimeout: 1,
    environment: [],
    hasEnvFile: false,
    runAs: null,
  };
}

const quiet = { sinks: { stdout: () => {}, stderr: () => {} } };

describe('what a job inherits from the spawner process', () => {
  it("the same descriptors as from an in-thread spawn: none of the spawner's pipes", async () => {
    // Other runs' pipes are open in the spawner while this one starts.
    const others = Array.from({ length: 5 }, () =>
      launch(spec('sleep 0.3'), { ...quiet, spawner: spawner.spawn }),
    );
    await Promise.all(others.map((h) => h.started));
    const fds = async (via: typeof spawner.spawn) =>
      (await launch(spec('ls /proc/self/fd'), { ...quiet, spawner: via }).done).stdout;
    const remote = await fds(spawner.spawn);
    expect(remote).toMatch(/^0\n1\n2\n/);
    expect(remote).toBe(await fds(spawnInThread));
    await Promise.all(others.map((h) => h.done));
  });

  it('the environment it was sent, whichever environment the spawn before it had', async () => {
    const show = { ...spec('echo "$A-$B"'), environment: [{ key: 'A', value: 'one' }] };
    const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', B: 'base' };
    const via = { ...quiet, spawner: spawner.spawn, baseEnv };
    const [first, second, third] = await Promise.all([
      launch(show, via).done,
      launch({ ...show, environment: [{ key: 'A', value: 'two' }] }, via).done,
      launch({ ...show, environment: [] }, { ...via, baseEnv: { ...baseEnv, A: 'inherited' } }).done,
    ]);
    expect([first!.stdout, second!.stdout, third!.stdout]).toEqual([
      'one-base\n',
      'two-base\n',
      'inherited-base\n',
    ]);
  });
});

describe('spawner process failures', () => {
  it('falls back to its fallback spawner when the interpreter is missing', async () => {
    const broken = new SpawnerProcess({ command: ['/nonexistent/perl', '-e', '1'] });
    const handle = launch(spec('echo $PPID'), { ...quiet, spawner: broken.spawn });
    const result = await handle.done;
    expect(result.startFailed).toBe(false);
    expect(result.exitCode).toBe(0);
    // The fallback (in-thread) makes this process the parent.
    expect(result.stdout).toBe(`${process.pid}\n`);
    expect(broken.usable).toBe(false);
  });

  it('reports a run whose spawner died as ended with an unknown status, with a warning', async () => {
    const doomed = new SpawnerProcess();
    const warnings: string[] = [];
    const handle = launch(spec('echo started; sleep 30'), {
      ...quiet,
      spawner: doomed.spawn,
      onWarning: (m) => warnings.push(m),
    });
    const pid = await handle.started;
    expect(pid).toBeGreaterThan(0);
    process.kill(doomed.pid!, 'SIGKILL');
    const result = await handle.done;
    expect(result.exitCode).toBe(-1);
    expect(warnings.join('\n')).toContain('spawner process exited');
    expect(doomed.usable).toBe(false);
    process.kill(-pid!, 'SIGKILL');
  });
});

/** A spawner that reads its first request only after `ms`: launches sent meanwhile stay queued. */
function lateSpawner(ms: number): SpawnerProcess {
  return new SpawnerProcess({
    idleMs: 1000,
    command: ['/bin/sh', '-c', `sleep ${ms / 1000}; exec perl -e "$0"`, spawnerScript()],
  });
}

describe('withdrawing queued launches (a daemon stopping with a backlog)', () => {
  it('takes back the launches not yet forked; the rest run, each answered once', async () => {
    const late = lateSpawner(300);
    try {
      const handles = Array.from({ length: 60 }, (_, i) =>
        launch(spec(`echo run-${i}`), { ...quiet, spawner: late.spawn }),
      );
      for (const h of handles.slice(20)) h.withdraw!();
      const results = await Promise.all(handles.map((h) => h.done));
      // The spawner read the withdrawals with the requests, before its first fork.
      expect(results.slice(0, 20).map((r) => [r.withdrawn, r.exitCode, r.stdout])).toEqual(
        Array.from({ length: 20 }, (_, i) => [undefined, 0, `run-${i}\n`]),
      );
      for (const r of results.slice(20)) {
        expect(r.withdrawn).toBe(true);
        expect(r.startFailed).toBe(true);
        expect(r.exitCode).toBe(127);
        expect(r.stdout).toBeNull();
      }
      expect(await Promise.all(handles.slice(20).map((h) => h.started))).toEqual(Array(40).fill(null));
      expect(late.backlog).toBe(0);
    } finally {
      late.close();
    }
  });

  it('leaves a process that exists alone: withdraw after the fork is a no-op', async () => {
    const handle = launch(spec('echo kept'), { ...quiet, spawner: spawner.spawn });
    expect(await handle.started).toBeGreaterThan(0);
    handle.withdraw!();
    const result = await handle.done;
    expect(result.withdrawn).toBeUndefined();
    expect(result.stdout).toBe('kept\n');
  });

  it('a cancel of a queued launch withdraws it instead of starting and killing it', async () => {
    const late = lateSpawner(300);
    try {
      const handle = launch(spec('echo never'), { ...quiet, spawner: late.spawn });
      await handle.cancel('cancelled');
      const result = await handle.done;
      expect(result.withdrawn).toBe(true);
      expect(result.cancelReason).toBe('cancelled');
      expect(result.stdout).toBeNull();
    } finally {
      late.close();
    }
  });
});

/** Session id of a process (stat field 6). */
function sessionOf(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[3]);
}

describe('spawner set (one spawner process per core)', () => {
  it('spreads a burst over its spawners, each in a session of its own, and runs every launch once', async () => {
    const set = new SpawnerSet(2, () => new SpawnerProcess({ idleMs: 1000 }));
    try {
      const handles = Array.from({ length: 40 }, (_, i) =>
        launch(spec(`echo ${i} $PPID`), { ...quiet, spawner: set.spawn }),
      );
      const results = await Promise.all(handles.map((h) => h.done));
      expect(results.map((r) => r.exitCode)).toEqual(results.map(() => 0));
      const lines = results.map((r) => r.stdout!.trim().split(' '));
      expect(lines.map((l) => Number(l[0]))).toEqual(Array.from({ length: 40 }, (_, i) => i));
      const parents = new Set(lines.map((l) => Number(l[1])));
      expect([...parents].sort()).toEqual([...set.pids].sort());
      expect(parents.size).toBe(2);
      for (const pid of set.pids) expect(sessionOf(pid)).toBe(pid);
      expect(set.backlog).toBe(0);
    } finally {
      set.close();
    }
  });

  it('spawns in this thread when no spawner can start', async () => {
    const set = new SpawnerSet(2, () => new SpawnerProcess({ command: ['/nonexistent/perl', '-e', '1'] }));
    const results = await Promise.all(
      [1, 2, 3].map((i) => launch(spec(`echo ${i} $PPID`), { ...quiet, spawner: set.spawn }).done),
    );
    expect(results.map((r) => r.stdout)).toEqual([1, 2, 3].map((i) => `${i} ${process.pid}\n`));
    expect(set.pids).toEqual([]);
  });
});
