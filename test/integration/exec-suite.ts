// exec against real child processes (spec 02 §3-§6): forms, env, capture, timeouts, kills, drain.
// Run once per spawn path (exec.test.ts: in-thread; exec-pooled.test.ts: the worker pool).
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FailsWhen } from '../../src/config/types.ts';
import { type LaunchOptions, type LaunchSpec, launch, type Spawner } from '../../src/exec/index.ts';
import { processGone } from '../helpers/child.ts';
import { writeTree } from '../helpers/tmp.ts';

const FAILS_WHEN: FailsWhen = {
  producesStdout: false,
  producesStderr: true,
  nonzeroReturn: true,
  always: false,
};

/** The spawner of the suite being declared (undefined: launch's default). */
let suiteSpawner: Spawner | undefined;

function spec(over: Partial<LaunchSpec> = {}): LaunchSpec {
  return {
    name: 'job',
    command: 'true',
    shell: '/bin/sh',
    captureStdout: true,
    captureStderr: true,
    saveLimit: 4096,
    maxLineLength: 16 * 1024 * 1024,
    streamPrefix: '[{job_name} {stream_name}] ',
    failsWhen: FAILS_WHEN,
    executionTimeout: null,
    killTimeout: 1,
    environment: [],
    hasEnvFile: false,
    runAs: null,
    ...over,
  };
}

/** Launch options that capture everything the run says (sinks, warnings, info lines). */
function recorder(extra: LaunchOptions = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const warnings: string[] = [];
  const infos: string[] = [];
  const opts: LaunchOptions = {
    ...(suiteSpawner ? { spawner: suiteSpawner } : {}),
    sinks: { stdout: (t) => out.push(t), stderr: (t) => err.push(t) },
    onWarning: (m) => warnings.push(m),
    onInfo: (m) => infos.push(m),
    ...extra,
  };
  return { out, err, warnings, infos, opts };
}

async function run(over: Partial<LaunchSpec>, extra: LaunchOptions = {}) {
  const rec = recorder(extra);
  const handle = launch(spec(over), rec.opts);
  const result = await handle.done;
  return { ...rec, handle, result };
}

/** The process group of a live process, or null once it is gone. */
function pgidOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return null;
  }
}

async function until(cond: () => boolean, ms = 2000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}

const leftovers: number[] = [];

export function execSuite(label: string, spawner?: Spawner): void {
  // Registered per file: this module is shared by the files of a worker (no isolation).
  afterEach(() => {
    for (const pid of leftovers.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
  describe(label, () => {
    beforeAll(() => {
      suiteSpawner = spawner;
    });
    describe('command forms (§3.1)', () => {
      it('runs an argv list verbatim: no shell, no expansion, no globbing', async () => {
        const { result } = await run({ command: ['/bin/echo', '$HOME', '*', 'a  b'] });
        expect(result.exitCode).toBe(0);
        expect(result.startFailed).toBe(false);
        expect(result.stdout).toBe('$HOME * a  b\n');
        expect(result.failReason).toBeNull();
      });

      it('looks an argv program up on PATH', async () => {
        const { result } = await run({ command: ['echo', 'found'] });
        expect(result.stdout).toBe('found\n');
      });

      it('runs a string through `shell -c` and through /bin/sh when shell is empty', async () => {
        const a = await run({ command: 'echo "$0:$((1+2))"', shell: '/bin/sh' });
        expect(a.result.stdout).toBe('/bin/sh:3\n');
        const b = await run({ command: 'echo "$0"', shell: '' });
        expect(b.result.stdout).toBe('/bin/sh\n');
      });

      it.skipIf(!existsSync('/bin/bash'))('uses a custom shell', async () => {
        const { result } = await run({ command: 'echo "$0 ${BASH_VERSION:+bash}"', shell: '/bin/bash' });
        expect(result.stdout).toBe('/bin/bash bash\n');
      });

      it('a nonexistent shell is a launch failure (127, startFailed), not a throw', async () => {
        const rec = recorder();
        const handle = launch(spec({ command: 'echo hi', shell: '/nonexistent/shell' }), rec.opts);
        expect(handle.pid).toBeNull();
        const result = await handle.done;
        expect(result).toMatchObject({
          exitCode: 127,
          startFailed: true,
          stdout: null,
          stderr: null,
          stdoutDiscarded: 0,
          stderrDiscarded: 0,
          failReason: 'failsWhen=nonzeroReturn and retcode=127',
          cancelReason: null,
          publishedLines: 0,
          ring: [],
        });
        expect(result.startError).toContain('ENOENT');
        await handle.cancel('cancelled'); // a logged no-op, never throws
        expect((await handle.done).cancelReason).toBeNull();
      });

      it('does not split the shell path on spaces', async () => {
        const { result } = await run({ command: 'echo hi', shell: '/bin/sh -e' });
        expect(result.exitCode).toBe(127);
        expect(result.startFailed).toBe(true);
      });

      it('a missing executable in argv form is a launch failure', async () => {
        const { result, handle } = await run({ command: ['cronstable-no-such-program-xyz', 'arg'] });
        expect(handle.pid).toBeNull();
        expect(result.exitCode).toBe(127);
        expect(result.startFailed).toBe(true);
        expect(result.stdout).toBeNull();
        expect(result.durationSeconds).toBeGreaterThanOrEqual(0);
      });

      it('a non-executable file is a launch failure (EACCES)', async () => {
        const dir = writeTree({ 'script.sh': 'echo hi\n' });
        const { result } = await run({ command: [`${dir}/script.sh`] });
        expect(result.startFailed).toBe(true);
        expect(result.exitCode).toBe(127);
        expect(result.startError).toContain('EACCES');
      });

      it('arguments Node rejects synchronously are a launch failure, and env values are not echoed', async () => {
        const a = await run({ command: ['echo', 'nul\0byte'] });
        expect(a.result.startFailed).toBe(true);
        expect(a.result.exitCode).toBe(127);
        const b = await run({ command: 'true', environment: [{ key: 'TOKEN', value: 'hunter2\0x' }] });
        expect(b.result.startFailed).toBe(true);
        expect(b.result.startError).toContain('ERR_INVALID_ARG_VALUE');
        expect(b.result.startError).not.toContain('hunter2');
        expect(b.handle.pid).toBeNull();
      });

      it('launch failure with nonzeroReturn false counts as success', async () => {
        const { result } = await run({
          command: ['cronstable-no-such-program-xyz'],
          failsWhen: { ...FAILS_WHEN, nonzeroReturn: false },
        });
        expect(result.startFailed).toBe(true);
        expect(result.failReason).toBeNull();
      });

      it('a string command whose program is missing is an ordinary exit 127 from sh', async () => {
        const { result } = await run({ command: 'cronstable-no-such-program-xyz' });
        expect(result.exitCode).toBe(127);
        expect(result.startFailed).toBe(false);
        expect(result.stderr).toContain('cronstable-no-such-program-xyz');
        expect(result.stderr).toContain('not found');
        expect(result.failReason).toBe('failsWhen=nonzeroReturn and retcode=127');
      });

      it('starts the child as the leader of its own process group', async () => {
        const { result, handle } = await run({ command: 'cut -d" " -f5 /proc/$$/stat; echo $$' });
        expect(handle.pid).toBeGreaterThan(0);
        expect(result.stdout).toBe(`${handle.pid}\n${handle.pid}\n`);
      });
    });

    describe('environment (§3.3)', () => {
      const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', A: 'base', C: 'from-daemon' };
      const show = 'echo "A=$A B=$B C=$C D=${D-unset}"';

      it('daemon env < environment entries < injected variables', async () => {
        const { result } = await run(
          {
            command: show,
            environment: [
              { key: 'A', value: 'from-job' },
              { key: 'B', value: 'from-job' },
            ],
          },
          { baseEnv, injectedEnv: { B: 'injected' } },
        );
        expect(result.stdout).toBe('A=from-job B=injected C=from-daemon D=unset\n');
        expect(result.environment).toEqual({ ...baseEnv, A: 'from-job', B: 'injected' });
      });

      it('inherits the daemon environment when nothing custom is needed (environment null)', async () => {
        const { result } = await run({ command: show }, { baseEnv });
        expect(result.stdout).toBe('A=base B= C=from-daemon D=unset\n');
        expect(result.environment).toBeNull();
      });

      it('inherits process.env by default', async () => {
        process.env.CRONSTABLE_EXEC_TEST_VAR = 'inherited-value';
        try {
          const { result } = await run({ command: 'echo "$CRONSTABLE_EXEC_TEST_VAR"' });
          expect(result.stdout).toBe('inherited-value\n');
          expect(result.environment).toBeNull();
        } finally {
          delete process.env.CRONSTABLE_EXEC_TEST_VAR;
        }
      });

      it('a set env_file alone builds a custom environment', async () => {
        const { result } = await run({ command: show, hasEnvFile: true }, { baseEnv });
        expect(result.stdout).toBe('A=base B= C=from-daemon D=unset\n');
        expect(result.environment).toEqual(baseEnv);
      });

      it('argv programs are looked up on the custom PATH', async () => {
        const { result } = await run(
          { command: ['sh', '-c', 'echo "$PATH"'], environment: [{ key: 'X', value: '1' }] },
          { baseEnv: { PATH: '/bin:/usr/bin' } },
        );
        expect(result.stdout).toBe('/bin:/usr/bin\n');
      });
    });

    describe('output capture (§4)', () => {
      it('re-emits prefixed lines to the same stream, publishes them live and retains them unprefixed', async () => {
        const lines: string[] = [];
        const { result, out, err, handle } = await run(
          {
            name: 'orders-ingest',
            command: 'echo one; echo two >&2; printf three',
            streamPrefix: '[meridian:{job_name}/{stream_name}] ',
          },
          { onLine: (l) => lines.push(`${l.stream}:${l.line}`) },
        );
        expect(out).toEqual([
          '[meridian:orders-ingest/stdout] one\n',
          '[meridian:orders-ingest/stdout] three',
        ]);
        expect(err).toEqual(['[meridian:orders-ingest/stderr] two\n']);
        expect(result.stdout).toBe('one\nthree');
        expect(result.stderr).toBe('two\n');
        expect(lines.sort()).toEqual(['stderr:two\n', 'stdout:one\n', 'stdout:three']);
        expect(result.publishedLines).toBe(3);
        expect(result.ring.map((l) => l.line).sort()).toEqual(['one\n', 'three', 'two\n']);
        expect(handle.liveOutput().published).toBe(3);
      });

      it('an empty prefix emits lines bare; a silent captured stream yields ""', async () => {
        const { result, out } = await run({ command: 'echo \'{"k":1}\'', streamPrefix: '' });
        expect(out).toEqual(['{"k":1}\n']);
        expect(result.stderr).toBe('');
        expect(result.stderrDiscarded).toBe(0);
      });

      it('stderr output fails the run while exiting 0; nonzero exit takes precedence', async () => {
        const a = await run({ name: 'config-lint', command: 'echo "lint error" >&2' });
        expect(a.result.exitCode).toBe(0);
        expect(a.result.failReason).toBe('failsWhen=producesStderr and stderr is not empty');
        const b = await run({ command: 'echo "db down" >&2; exit 69' });
        expect(b.result.exitCode).toBe(69);
        expect(b.result.failReason).toBe('failsWhen=nonzeroReturn and retcode=69');
        const c = await run({
          command: 'echo diff',
          failsWhen: { ...FAILS_WHEN, producesStdout: true },
        });
        expect(c.result.failReason).toBe('failsWhen=producesStdout and stdout is not empty');
      });

      it('uncaptured streams are inherited and report null; output checks cannot fire', async () => {
        const { result, out, err } = await run({
          name: 'silent-cleanup',
          command: 'true',
          captureStdout: false,
          captureStderr: false,
          failsWhen: { ...FAILS_WHEN, producesStdout: true },
        });
        expect(result.stdout).toBeNull();
        expect(result.stderr).toBeNull();
        expect(out).toEqual([]);
        expect(err).toEqual([]);
        expect(result.failReason).toBeNull();
        expect(result.publishedLines).toBe(0);
      });

      it('captures only the configured stream', async () => {
        const { result, err } = await run({ command: 'echo e >&2', captureStdout: false });
        expect(result.stdout).toBeNull();
        expect(result.stderr).toBe('e\n');
        expect(err).toEqual(['[job stderr] e\n']);
      });

      it('retains head and tail per saveLimit (8 of 10 lines)', async () => {
        const { result, out } = await run({
          name: 'audit-log-ship',
          command: 'for i in 1 2 3 4 5 6 7 8 9 10; do echo "line $i"; done',
          saveLimit: 8,
        });
        expect(result.stdout).toBe(
          'line 1\nline 2\nline 3\nline 4\n   [.... 2 lines discarded ...]\nline 7\nline 8\nline 9\nline 10\n',
        );
        expect(result.stdoutDiscarded).toBe(2);
        expect(out).toHaveLength(10);
        expect(result.publishedLines).toBe(10);
      });

      it('saveLimit 0 keeps nothing but the discarded lines still trip producesStderr', async () => {
        const { result } = await run({ command: 'echo a >&2; echo b >&2', saveLimit: 0 });
        expect(result.stderr).toBe('');
        expect(result.stderrDiscarded).toBe(2);
        expect(result.failReason).toBe('failsWhen=producesStderr and stderr is not empty');
      });

      it('drops a line longer than maxLineLength bytes with a warning (not retained, emitted or counted)', async () => {
        const { result, out, warnings } = await run({
          name: 'log-rotate',
          command:
            "echo short; head -c 81 /dev/zero | tr '\\0' x; echo; head -c 80 /dev/zero | tr '\\0' y; echo",
          maxLineLength: 80,
        });
        expect(result.stdout).toBe(`short\n${'y'.repeat(80)}\n`);
        expect(out).toEqual(['[log-rotate stdout] short\n', `[log-rotate stdout] ${'y'.repeat(80)}\n`]);
        expect(warnings).toEqual(['job log-rotate: ignored a very long line']);
        expect(result.stdoutDiscarded).toBe(0);
        expect(result.publishedLines).toBe(2);
      });

      it('drops a multi-megabyte line spanning many reads whole, then continues', async () => {
        const { result, warnings } = await run({
          command: "head -c 3000000 /dev/zero | tr '\\0' z; printf '\\nafter\\n'",
          maxLineLength: 1000,
        });
        expect(result.stdout).toBe('after\n');
        expect(warnings).toEqual(['job job: ignored a very long line']);
      });

      it('only over-long stderr output does not fail producesStderr', async () => {
        const { result } = await run({ command: "head -c 50 /dev/zero | tr '\\0' e >&2", maxLineLength: 10 });
        expect(result.stderr).toBe('');
        expect(result.failReason).toBeNull();
      });

      it('decodes invalid UTF-8 with U+FFFD and keeps valid multi-byte text', async () => {
        const { result } = await run({ command: "printf 'a\\377b\\n\\303\\251t\\303\\251\\n'" });
        expect(result.stdout).toBe('a\uFFFDb\nété\n');
      });

      it('a background grandchild holding stdout keeps an un-cancelled run running until it exits', async () => {
        const t0 = performance.now();
        const { result } = await run({ command: '(sleep 0.6; echo late) & echo early' });
        const elapsed = performance.now() - t0;
        expect(result.stdout).toBe('early\nlate\n');
        expect(result.exitCode).toBe(0);
        expect(elapsed).toBeGreaterThanOrEqual(550);
        // Duration runs to the direct child's exit, not to the end of the drain.
        expect(result.durationSeconds).toBeLessThan(0.45);
      });
    });

    describe('timeouts and cancellation (§5)', () => {
      it('executionTimeout kills the whole group, records -100 and cancelReason timeout', async () => {
        const rec = recorder();
        const handle = launch(
          spec({
            name: 'slow-report-generator',
            command: "(trap '' TERM; exec sleep 30) & echo $!; sleep 30",
            executionTimeout: 0.3,
            killTimeout: 2,
          }),
          rec.opts,
        );
        const result = await handle.done;
        const grandchild = Number(result.stdout?.trim());
        leftovers.push(grandchild);
        expect(grandchild).toBeGreaterThan(0);
        expect(result.exitCode).toBe(-100);
        expect(result.cancelReason).toBe('timeout');
        expect(result.failReason).toBe('failsWhen=nonzeroReturn and retcode=-100');
        expect(result.durationSeconds).toBeGreaterThanOrEqual(0.29);
        expect(result.durationSeconds).toBeLessThan(1.5);
        expect(rec.infos).toEqual([
          'Job slow-report-generator exceeded its executionTimeout of 0.3 seconds, cancelling it...',
        ]);
        // The shell died of SIGTERM in time: no escalation warning, but the TERM-ignoring
        // grandchild was still SIGKILLed with the group.
        expect(rec.warnings).toEqual([]);
        expect(await until(() => processGone(handle.pid!))).toBe(true);
        expect(await until(() => processGone(grandchild))).toBe(true);
      });

      it('a child ignoring SIGTERM is SIGKILLed after killTimeout with a warning', async () => {
        const rec = recorder();
        const handle = launch(
          spec({ name: 'stubborn', command: "trap '' TERM; echo ready; sleep 30", killTimeout: 0.3 }),
          rec.opts,
        );
        await until(() => rec.out.length > 0);
        const t0 = performance.now();
        await handle.cancel('cancelled');
        const waited = performance.now() - t0;
        const result = await handle.done;
        expect(waited).toBeGreaterThanOrEqual(280);
        expect(result.exitCode).toBe(-9);
        expect(result.cancelReason).toBe('cancelled');
        expect(result.failReason).toBe('failsWhen=nonzeroReturn and retcode=-9');
        expect(rec.warnings).toEqual([
          'Job stubborn did not gracefully terminate after 0.3 seconds, killing it...',
        ]);
        expect(processGone(handle.pid!)).toBe(true);
      });

      it('executionTimeout on a TERM-ignoring child still records -100', async () => {
        const { result, warnings } = await run({
          name: 'stubborn',
          command: "trap '' TERM; sleep 30",
          executionTimeout: 0.2,
          killTimeout: 0.2,
        });
        expect(result.exitCode).toBe(-100);
        expect(result.cancelReason).toBe('timeout');
        expect(warnings).toEqual([
          'Job stubborn did not gracefully terminate after 0.2 seconds, killing it...',
        ]);
      });

      it("cancel('replaced') records the negative signal and the reason", async () => {
        const rec = recorder();
        const handle = launch(spec({ name: 'search-reindex', command: 'echo started; sleep 30' }), rec.opts);
        await until(() => rec.out.length > 0);
        const first = handle.cancel('replaced');
        expect(handle.cancel('cancelled')).toBe(first); // one sequence; the first reason wins
        await first;
        const result = await handle.done;
        expect(result.exitCode).toBe(-15);
        expect(result.cancelReason).toBe('replaced');
        expect(result.stdout).toBe('started\n');
        expect(result.failReason).toBe('failsWhen=nonzeroReturn and retcode=-15');
        expect(rec.warnings).toEqual([]);
        await handle.cancel('cancelled'); // after completion: no-op
      });

      it('cancelling a run whose shell exited but whose grandchild holds the pipe kills the group and keeps the exit code', async () => {
        const rec = recorder();
        const handle = launch(spec({ command: "(trap '' TERM; exec sleep 30) & echo $!" }), rec.opts);
        await until(() => rec.out.length > 0);
        const grandchild = Number(rec.out[0]?.replace('[job stdout] ', '').trim());
        leftovers.push(grandchild);
        await new Promise((r) => setTimeout(r, 100));
        expect(processGone(handle.pid!)).toBe(true);
        expect(processGone(grandchild)).toBe(false); // the run is still "running": its pipe is open
        await handle.cancel('replaced');
        const result = await handle.done;
        expect(result.exitCode).toBe(0);
        expect(result.cancelReason).toBe('replaced');
        expect(result.failReason).toBeNull();
        expect(rec.warnings).toEqual([]);
        expect(await until(() => processGone(grandchild))).toBe(true);
      });

      it('killTimeout 0 SIGKILLs right after SIGTERM', async () => {
        const rec = recorder();
        const handle = launch(
          spec({ command: "trap '' TERM; echo ready; sleep 30", killTimeout: 0 }),
          rec.opts,
        );
        await until(() => rec.out.length > 0);
        await handle.cancel('shutdown');
        const result = await handle.done;
        expect(result.exitCode).toBe(-9);
        expect(result.cancelReason).toBe('shutdown');
      });

      it('a run that finishes before its executionTimeout is not cancelled', async () => {
        const { result, infos } = await run({ command: 'echo fast', executionTimeout: 5 });
        expect(result.exitCode).toBe(0);
        expect(result.cancelReason).toBeNull();
        expect(infos).toEqual([]);
      });

      it('bounds the drain of a cancelled run whose pipe is held outside the group', async () => {
        const rec = recorder({ drainAfterKillMs: 300 });
        const handle = launch(
          spec({ name: 'escaper', command: 'setsid sleep 5 & echo $!; sleep 30' }),
          rec.opts,
        );
        await until(() => rec.out.length > 0);
        const escaped = Number(rec.out[0]?.replace('[escaper stdout] ', '').trim());
        leftovers.push(escaped);
        expect(escaped).toBeGreaterThan(0);
        // `echo $!` can run before the background child has called setsid; a kill in that
        // gap takes the child with the group and there is nothing left to hold the pipe.
        expect(await until(() => pgidOf(escaped) === escaped, 5000)).toBe(true);
        const t0 = performance.now();
        await handle.cancel('cancelled');
        const result = await handle.done;
        const elapsed = performance.now() - t0;
        expect(elapsed).toBeGreaterThanOrEqual(280);
        expect(elapsed).toBeLessThan(2000);
        expect(result.exitCode).toBe(-15);
        expect(result.stdout).toBe(`${escaped}\n`);
        expect(result.stderr).toBe('');
        expect(rec.warnings.sort()).toEqual([
          'job escaper: stderr did not reach end-of-file within 0.3 seconds of the job being killed; closing it and keeping the output captured so far',
          'job escaper: stdout did not reach end-of-file within 0.3 seconds of the job being killed; closing it and keeping the output captured so far',
        ]);
        expect(processGone(escaped)).toBe(false); // outside the group: it survived the kill
      });

      it.skipIf(process.getuid?.() !== 0)('runs as another user (uid/gid)', async () => {
        const { result } = await run({
          command: ['id', '-u'],
          runAs: { uid: 65534, gid: 65534, login: null },
          captureStderr: false,
        });
        expect(result.stdout).toBe('65534\n');
      });
    });
  });
}
