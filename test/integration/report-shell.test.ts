// Shell reporter running real processes.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runShellReporter, SHELL_REPORTER_MAX_CHARS } from '../../src/report/shell.ts';
import { processGone } from '../helpers/child.ts';
import { RecordingLogger, reportContext } from '../helpers/report-kit.ts';
import { writeTree } from '../helpers/tmp.ts';

const DUMP_ENV = 'require("fs").writeFileSync(process.argv[1], JSON.stringify(process.env))';
const daemonEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', DAEMON_ONLY: 'yes' };

describe('shell reporter', () => {
  it('exports every CRONSTABLE_* variable on top of the daemon environment (list form)', async () => {
    const out = join(writeTree({}), 'env.json');
    const log = new RecordingLogger();
    const stdout = `${'é'.repeat(SHELL_REPORTER_MAX_CHARS)}tail`;
    await runShellReporter(
      { command: [process.execPath, '-e', DUMP_ENV, out] },
      reportContext({
        name: 'db-health-orders',
        success: false,
        fail_reason: 'failsWhen=nonzeroReturn and retcode=69',
        exit_code: 69,
        command: ['pg_isready', '-h', 'db'],
        stdout,
        stderr: 'no route\n',
        cpu_seconds: 1.25,
        max_rss_bytes: 52428800,
        schedule: '0 */2 * * * *',
        environment: { JOB_ONLY: 'no' },
        host: 'node-a',
        started_at: '2026-07-05T09:00:01.123000+00:00',
        run_id: '0123456789abcdef0123456789abcdef',
      }),
      { logger: log, env: daemonEnv },
    );
    expect(log.at('error')).toEqual([]);
    const env = JSON.parse(readFileSync(out, 'utf8'));
    expect(env.DAEMON_ONLY).toBe('yes');
    expect(env.JOB_ONLY).toBeUndefined();
    const mine = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('CRONSTABLE_')));
    expect(mine).toEqual({
      CRONSTABLE_FAIL_REASON: 'failsWhen=nonzeroReturn and retcode=69',
      CRONSTABLE_FAILED: '1',
      CRONSTABLE_JOB_NAME: 'db-health-orders',
      CRONSTABLE_JOB_COMMAND: 'pg_isready -h db',
      CRONSTABLE_JOB_SCHEDULE: '0 */2 * * * *',
      CRONSTABLE_RETCODE: '69',
      CRONSTABLE_STDOUT: 'é'.repeat(SHELL_REPORTER_MAX_CHARS),
      CRONSTABLE_STDERR: 'no route\n',
      CRONSTABLE_STDOUT_TRUNCATED: '1',
      CRONSTABLE_STDERR_TRUNCATED: '0',
      CRONSTABLE_CPU_SECONDS: '1.25',
      CRONSTABLE_MAX_RSS_BYTES: '52428800',
      CRONSTABLE_HOST: 'node-a',
      CRONSTABLE_STARTED_AT: '2026-07-05T09:00:01.123000+00:00',
      CRONSTABLE_RUN_ID: '0123456789abcdef0123456789abcdef',
      // Spec 09 §2.7: the breach variables, empty outside an onLate report.
      CRONSTABLE_SLA_CHECK: '',
      CRONSTABLE_SLA_THRESHOLD_SECONDS: '',
      CRONSTABLE_SLA_OBSERVED_SECONDS: '',
      CRONSTABLE_LAST_SUCCESS_AT: '',
    });
  });

  it('runs a string through the shell, with empty values for a successful unmonitored run', async () => {
    const dir = writeTree({});
    const out = join(dir, 'vars');
    await runShellReporter(
      {
        command: `printf '%s|%s|%s|%s|%s' "$CRONSTABLE_FAILED" "$CRONSTABLE_FAIL_REASON" "$CRONSTABLE_STDOUT" "$CRONSTABLE_CPU_SECONDS" "$CRONSTABLE_JOB_COMMAND" > '${out}'`,
      },
      reportContext({ command: 'echo hi' }),
      { logger: new RecordingLogger(), env: daemonEnv },
    );
    expect(readFileSync(out, 'utf8')).toBe('0||||echo hi');
  });

  it('logs a non-zero exit', async () => {
    const log = new RecordingLogger();
    await runShellReporter({ command: 'exit 3' }, reportContext(), { logger: log, env: daemonEnv });
    expect(log.at('error')).toEqual(['Error executing shell reporter of job j with return code 3']);
  });

  it('kills the whole process group after the timeout', async () => {
    const dir = writeTree({});
    const pidFile = join(dir, 'pid');
    const log = new RecordingLogger();
    const started = Date.now();
    await runShellReporter(
      { command: `sleep 30 & echo $! > '${pidFile}'; wait`, timeout: 0.5 },
      reportContext(),
      { logger: log, env: daemonEnv },
    );
    expect(Date.now() - started).toBeLessThan(4000);
    expect(log.at('error')).toEqual([
      'Shell reporter of job j did not finish within 0.5 seconds; killing it',
    ]);
    expect(existsSync(pidFile)).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    const deadline = Date.now() + 2000;
    while (!processGone(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(processGone(pid)).toBe(true);
  });

  it('throws a launch error', async () => {
    await expect(
      runShellReporter({ command: 'true', shell: '/nonexistent/sh' }, reportContext(), {
        logger: new RecordingLogger(),
        env: daemonEnv,
      }),
    ).rejects.toThrow(/ENOENT/);
  });

  it('does nothing without a command', async () => {
    const log = new RecordingLogger();
    await runShellReporter(null, reportContext(), { logger: log });
    await runShellReporter({ command: '' }, reportContext(), { logger: log });
    expect(log.entries).toEqual([]);
  });
});
