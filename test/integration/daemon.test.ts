// The daemon binary on a config that uses every single-node feature, for ~15 s, with real
// sinks: SMTP (mail), HTTP (webhooks, Sentry), UDP (statsd), and real child processes. What ran
// is read back from the run ledger (the `state:` store) after the daemon exits.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { httpSink, smtpSink, udpSink, waitFor } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'cronstable.mjs');

/** One run as the ledger records it (spec 03 §8.1). */
interface LedgerRun {
  outcome: string;
  exit_code: number | null;
  started_at: string;
  finished_at: string;
  fail_reason: string | null;
  trigger: string;
  attempt: number;
}

function config(
  ports: { http: number; smtp: number; udp: number },
  statePath: string,
  extraJobs = '',
): string {
  const mail = (subjectLine = '') => `        mail:
          from: cron@example.com
          to: oncall@example.com
          smtpHost: 127.0.0.1
          smtpPort: "${ports.smtp}"
          username: robot
          password:
            fromEnvVar: TEST_SMTP_PASSWORD
${subjectLine}`;
  return `state:
  path: ${statePath}
  topology: single-node
defaults:
  captureStdout: true
jobs:
  - name: tick
    command: echo "tick $GREETING"
    schedule: "* * * * * * *"
    streamPrefix: "[{job_name}/{stream_name}] "
    environment:
      - key: GREETING
        value: hello
  - name: argv-job
    command:
      - /bin/echo
      - argv $NOT_EXPANDED
    schedule: "*/2 * * * * * *"
    streamPrefix: ""
  - name: envfile-job
    command: echo "bucket=$BUCKET region=$REGION"
    schedule: "@reboot"
    env_file: vars.env
    environment:
      - key: REGION
        value: inline
    onSuccess:
      report:
        webhook:
          url:
            value: http://127.0.0.1:${ports.http}/success
          body: '{"job": "{{ name }}", "success": "{{ success }}", "host": "{{ environment.HOSTNAME }}"}'
  - name: stderr-fail
    command: echo oops >&2
    schedule: "@reboot"
    onFailure:
      report:
        webhook:
          url:
            value: http://127.0.0.1:${ports.http}/failure
          method: PUT
          headers:
            X-Test: "yes"
  - name: flaky
    command: n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; [ $n -ge 3 ]
    schedule: "@reboot"
    onFailure:
      retry:
        maximumRetries: 5
        initialDelay: 1
        maximumDelay: 1
        backoffMultiplier: 1
    onSuccess:
      report:
${mail()}
  - name: doomed
    command: echo "doomed output"; exit 3
    schedule: "@reboot"
    onFailure:
      retry:
        maximumRetries: 2
        initialDelay: 0.5
        maximumDelay: 1
        backoffMultiplier: 2
    onPermanentFailure:
      report:
${mail('          subject: "PERMANENT {{ name }} exit={{ exit_code }}"\n')}        sentry:
          dsn:
            value: http://publickey@127.0.0.1:${ports.http}/42
          level: warning
  - name: slow-timeout
    command: sleep 30
    schedule: "@reboot"
    executionTimeout: 2
    killTimeout: 1
    onFailure:
      report:
        shell:
          command: echo "timeout-report $CRONSTABLE_RETCODE $CRONSTABLE_FAIL_REASON" > shell-report.txt
  - name: forbid
    command: sleep 3
    schedule: "* * * * * * *"
    concurrencyPolicy: Forbid
  - name: replace
    command: sleep 5
    schedule: "*/3 * * * * * *"
    concurrencyPolicy: Replace
  - name: metrics
    command: "true"
    schedule: "*/2 * * * * * *"
    statsd:
      prefix: cronstable.test
      host: 127.0.0.1
      port: "${ports.udp}"
  - name: metrics-stderr
    command: echo "exit 0 but stderr" >&2
    schedule: "*/2 * * * * * *"
    statsd:
      prefix: cronstable.stderr
      host: 127.0.0.1
      port: "${ports.udp}"
  - name: disabled
    enabled: false
    command: touch disabled-ran
    schedule: "* * * * * * *"
  - name: boot
    command: echo booted >> boot.log
    schedule: "@reboot"
${extraJobs}`;
}

describe('the daemon on a full-featured config', () => {
  let dir: string;
  let daemon: ChildProcess;
  let out = '';
  let err = '';
  let exit: Promise<number | null>;
  /** The ledger's runs of each job, oldest first, read after the daemon exited. */
  const ledger = new Map<string, LedgerRun[]>();
  const runsOf = (job: string) => ledger.get(job) ?? [];
  /** Slots that ended without a run (skipped, claimed elsewhere, missed): ledger rows of their own. */
  const unrun = new Map<string, LedgerRun[]>();
  const unrunOf = (job: string) => unrun.get(job) ?? [];
  const sinks = {} as {
    http: Awaited<ReturnType<typeof httpSink>>;
    smtp: Awaited<ReturnType<typeof smtpSink>>;
    udp: Awaited<ReturnType<typeof udpSink>>;
  };

  beforeAll(async () => {
    sinks.http = await httpSink();
    sinks.smtp = await smtpSink();
    sinks.udp = await udpSink();
    const ports = { http: sinks.http.port, smtp: sinks.smtp.port, udp: sinks.udp.port };
    dir = writeTree({}, true);
    const statePath = join(dir, 'state');
    writeFileSync(join(dir, 'vars.env'), 'BUCKET=b1\nREGION=from-file\n');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'conf'));
    writeFileSync(join(dir, 'conf/jobs.yaml'), config(ports, statePath));
    daemon = spawn(process.execPath, [BUNDLE, '-c', join(dir, 'conf'), '--shutdown-timeout', '5'], {
      cwd: dir,
      env: { ...process.env, TEST_SMTP_PASSWORD: 's3cret-pw', NOT_EXPANDED: 'SHOULD-NOT-APPEAR' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    daemon.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    daemon.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
    });
    exit = new Promise((r) => daemon.on('exit', (code) => r(code)));
    await waitFor(() => err.includes('cronstable started'), 10_000, 'daemon start');
    // Let every feature play out: retries, timeouts, overlaps, replaced runs.
    await waitFor(
      () =>
        existsSync(join(dir, 'shell-report.txt')) &&
        sinks.smtp.mails.length >= 2 &&
        err.includes('was replaced'),
      20_000,
      `daemon activity; stderr so far:\n${err}`,
    );
    // Reload: SIGHUP after adding a job.
    writeFileSync(
      join(dir, 'conf/jobs.yaml'),
      config(
        ports,
        statePath,
        '  - name: added\n    command: echo added >> added.log\n    schedule: "* * * * * * *"\n',
      ),
    );
    daemon.kill('SIGHUP');
    await waitFor(() => existsSync(join(dir, 'added.log')), 10_000, 'the reloaded job');
    daemon.kill('SIGTERM');
    await exit;
    const store = await openStore({
      path: statePath,
      namespace: 'default',
      topology: 'single-node',
      inline: true,
    });
    try {
      for (const name of ['flaky', 'doomed', 'slow-timeout', 'forbid', 'replace', 'disabled', 'added']) {
        const rows = (await store.list(`runs/${name}`)).map((r) => r.data as unknown as LedgerRun);
        ledger.set(
          name,
          rows.filter((r) => r.started_at !== null).sort((a, b) => a.started_at.localeCompare(b.started_at)),
        );
        unrun.set(
          name,
          rows.filter((r) => r.started_at === null),
        );
      }
    } finally {
      await store.close();
    }
  }, 60_000);

  afterAll(async () => {
    if (daemon.exitCode === null) daemon.kill('SIGKILL');
    await Promise.all([sinks.http?.close(), sinks.smtp?.close(), sinks.udp?.close()]);
  });

  it('stops gracefully on SIGTERM with exit code 0', async () => {
    expect(await exit).toBe(0);
    expect(err).toContain('Shutdown complete');
  });

  it('re-emits captured output with the stream prefix, or none', () => {
    expect(out).toContain('[tick/stdout] tick hello\n');
    expect(out).toMatch(/^argv \$NOT_EXPANDED$/m);
    expect(out).not.toContain('SHOULD-NOT-APPEAR');
  });

  it('builds the environment from the daemon, env_file, then environment', () => {
    expect(out).toContain('bucket=b1 region=inline');
  });

  it('posts webhooks with method, headers and templated bodies', () => {
    const success = sinks.http.hits.find((h) => h.url === '/success')!;
    expect(JSON.parse(success.body)).toEqual({
      job: 'envfile-job',
      success: 'True',
      host: expect.any(String),
    });
    expect(JSON.parse(success.body).host).not.toBe('');
    const failure = sinks.http.hits.find((h) => h.url === '/failure')!;
    expect(failure.method).toBe('PUT');
    expect(failure.headers['x-test']).toBe('yes');
    expect(failure.headers['content-type']).toBe('application/json');
    expect(JSON.parse(failure.body).text).toContain("Cron job 'stderr-fail' failed");
    expect(JSON.parse(failure.body).text).toContain('oops');
  });

  it('retries until success, then mails the success with SMTP auth', () => {
    expect(readFileSync(join(dir, 'count'), 'utf8').trim()).toBe('3');
    expect(runsOf('flaky').map((r) => [r.trigger, r.attempt, r.outcome])).toEqual([
      ['reboot', 0, 'failure'],
      ['retry', 1, 'failure'],
      ['retry', 2, 'success'],
    ]);
    const mail = sinks.smtp.mails.find((m) => m.mail.subject === "Cron job 'flaky' completed")!;
    expect(mail.user).toBe('robot');
    expect(mail.password).toBe('s3cret-pw');
    expect(mail.envelopeTo).toEqual(['oncall@example.com']);
  });

  it('reports a permanent failure by mail and to Sentry after the retries run out', () => {
    const mail = sinks.smtp.mails.find((m) => m.mail.subject === 'PERMANENT doomed exit=3')!;
    expect(mail.mail.text).toContain('doomed output');
    expect(runsOf('doomed').map((r) => [r.attempt, r.outcome, r.exit_code])).toEqual([
      [0, 'failure', 3],
      [1, 'failure', 3],
      [2, 'failure', 3],
    ]);
    expect(sinks.smtp.mails.filter((m) => m.mail.subject === 'PERMANENT doomed exit=3')).toHaveLength(1);
    const sentry = sinks.http.hits.find((h) => h.url.startsWith('/api/42/'))!;
    expect(sentry.headers['x-sentry-auth']).toContain('sentry_key=publickey');
    expect(sentry.body).toContain('"level":"warning"');
    expect(err).not.toContain('s3cret-pw');
  });

  it('kills a job at its executionTimeout with exit -100 and runs the shell reporter', () => {
    expect(readFileSync(join(dir, 'shell-report.txt'), 'utf8')).toBe(
      'timeout-report -100 failsWhen=nonzeroReturn and retcode=-100\n',
    );
    const [run] = runsOf('slow-timeout');
    expect(run).toMatchObject({ outcome: 'failure', exit_code: -100 });
    const took = Date.parse(run!.finished_at) - Date.parse(run!.started_at);
    expect(took).toBeGreaterThanOrEqual(2_000);
    expect(took).toBeLessThan(10_000);
  });

  it('skips overlaps under Forbid and replaces under Replace', () => {
    const forbid = runsOf('forbid');
    expect(forbid.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < forbid.length; i++)
      expect(forbid[i]!.started_at >= forbid[i - 1]!.finished_at).toBe(true);
    // The fires Forbid skipped are in the ledger as slots without a run.
    expect(unrunOf('forbid').length).toBeGreaterThan(0);
    expect(unrunOf('forbid').every((r) => r.outcome === 'skipped:overlap' && r.exit_code === null)).toBe(
      true,
    );
    expect(runsOf('replace')).toContainEqual(
      expect.objectContaining({ outcome: 'cancelled', fail_reason: 'replaced by a newer instance' }),
    );
  });

  it('logs the run lines of spec 02 §4.7', () => {
    expect(err).toContain('Cron job flaky scheduled to be retried (#2) in 1.0 seconds');
    expect(err).toContain('Cron job doomed: reporting permanent failure');
    expect(err).toContain('Job slow-timeout exceeded its executionTimeout of 2 seconds');
    expect(err).toContain('Job forbid: still running and concurrencyPolicy is Forbid');
    expect(err).toContain('Job replace was replaced by a newer instance');
  });

  it('pushes statsd start and stop datagrams', () => {
    expect(sinks.udp.datagrams).toContain('cronstable.test.start:1|g\n');
    const stop = sinks.udp.datagrams.find((d) => d.startsWith('cronstable.test.stop:1|g\n'))!;
    expect(stop).toMatch(
      /^cronstable\.test\.stop:1\|g\ncronstable\.test\.success:1\|g\ncronstable\.test\.duration:\d+\|ms\n$/,
    );
  });

  it('reports the final verdict in the statsd success gauge (stderr output fails the run)', () => {
    const stop = sinks.udp.datagrams.find((d) => d.startsWith('cronstable.stderr.stop:1|g\n'))!;
    expect(stop).toContain('cronstable.stderr.success:0|g\n');
  });

  it('never logs secret values', () => {
    expect(err + out).not.toContain('s3cret-pw');
    expect(err + out).not.toContain('publickey');
  });

  it('never runs a disabled job, and runs @reboot once', () => {
    expect(existsSync(join(dir, 'disabled-ran'))).toBe(false);
    expect(runsOf('disabled')).toEqual([]);
    // Each of its due slots is accounted for in the ledger as skipped:disabled.
    expect(unrunOf('disabled').length).toBeGreaterThan(0);
    expect(unrunOf('disabled').every((r) => r.outcome === 'skipped:disabled')).toBe(true);
    expect(readFileSync(join(dir, 'boot.log'), 'utf8')).toBe('booted\n');
  });

  it('picks up a new job on SIGHUP', () => {
    expect(readFileSync(join(dir, 'added.log'), 'utf8')).toContain('added');
    expect(runsOf('added').length).toBeGreaterThanOrEqual(1);
    expect(runsOf('added').every((r) => r.trigger === 'schedule' && r.outcome === 'success')).toBe(true);
  });
});
