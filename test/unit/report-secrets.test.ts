// Secret resolution (spec 02 §9.6) and the small pure helpers of the reporters.
import { describe, expect, it } from 'vitest';
import { defaultReportBlock } from '../../src/config/builtins.ts';
import { isConfigured } from '../../src/report/index.ts';
import { isMailConfigured } from '../../src/report/mail.ts';
import { hasSecretSource, resolveSecret } from '../../src/report/secrets.ts';
import { parseDsn, sentryLevel, truncateString } from '../../src/report/sentry.ts';
import {
  isShellConfigured,
  SHELL_REPORTER_MAX_CHARS,
  shellReporterArgv,
  shellReporterEnv,
  truncateCodePoints,
} from '../../src/report/shell.ts';
import { startDatagram, stopDatagram } from '../../src/report/statsd.ts';
import { maskUrl, webhookHeaders } from '../../src/report/webhook.ts';
import { reportContext } from '../helpers/report-kit.ts';
import { writeTree } from '../helpers/tmp.ts';

const src = (value: string | null, fromFile: string | null, fromEnvVar: string | null) => ({
  value,
  fromFile,
  fromEnvVar,
});

describe('resolveSecret', () => {
  it('prefers value, then fromFile, then fromEnvVar', async () => {
    const dir = writeTree({ 'pw.txt': '  from-file \n' });
    const env = { PW: 'from-env' };
    expect(await resolveSecret(src('v', `${dir}/pw.txt`, 'PW'), env)).toEqual({ kind: 'value', value: 'v' });
    expect(await resolveSecret(src(null, `${dir}/pw.txt`, 'PW'), env)).toEqual({
      kind: 'value',
      value: 'from-file',
    });
    expect(await resolveSecret(src('', '', 'PW'), env)).toEqual({ kind: 'value', value: 'from-env' });
  });

  it('reports a missing or empty env var by name', async () => {
    expect(await resolveSecret(src(null, null, 'NOPE'), {})).toEqual({ kind: 'missingEnv', name: 'NOPE' });
    expect(await resolveSecret(src(null, null, 'E'), { E: '' })).toEqual({ kind: 'missingEnv', name: 'E' });
  });

  it('is absent when no source is set', async () => {
    expect(await resolveSecret(src(null, null, null), { X: 'y' })).toEqual({ kind: 'absent' });
    expect(await resolveSecret(null, {})).toEqual({ kind: 'absent' });
    expect(hasSecretSource(src('', null, ''))).toBe(false);
    expect(hasSecretSource(src(null, null, 'X'))).toBe(true);
  });

  it('propagates a file read error', async () => {
    await expect(resolveSecret(src(null, '/nonexistent/cronstable/pw', null), {})).rejects.toThrow(/ENOENT/);
  });

  it('resolves at call time, every time', async () => {
    const env: Record<string, string> = {};
    const s = src(null, null, 'LATE');
    expect((await resolveSecret(s, env)).kind).toBe('missingEnv');
    env.LATE = 'now';
    expect(await resolveSecret(s, env)).toEqual({ kind: 'value', value: 'now' });
  });
});

describe('configured reporters', () => {
  it('built-in defaults configure nothing', () => {
    expect(isConfigured(defaultReportBlock())).toBe(false);
    expect(isConfigured(null)).toBe(false);
  });

  it('mail needs both from and to; shell a command; sentry/webhook a source', () => {
    const b = defaultReportBlock();
    expect(isMailConfigured({ ...b.mail!, from: 'a@x', to: '' })).toBe(false);
    expect(isMailConfigured({ ...b.mail!, from: 'a@x', to: 'b@x' })).toBe(true);
    expect(isShellConfigured({ command: 'true' })).toBe(true);
    expect(isConfigured({ ...b, webhook: { ...b.webhook!, url: src('http://x', null, null) } })).toBe(true);
    expect(isConfigured({ ...b, sentry: { ...b.sentry!, dsn: src(null, null, 'SENTRY_DSN') } })).toBe(true);
  });
});

describe('shell reporter helpers', () => {
  it('truncates on code points and flags it', () => {
    expect(truncateCodePoints('abc', 3)).toEqual({ text: 'abc', truncated: false });
    expect(truncateCodePoints('abcd', 3)).toEqual({ text: 'abc', truncated: true });
    expect(truncateCodePoints('😀😀😀', 2)).toEqual({ text: '😀😀', truncated: true });
    expect(truncateCodePoints('😀😀', 2)).toEqual({ text: '😀😀', truncated: false });
  });

  it('builds the CRONSTABLE_* variables', () => {
    const env = shellReporterEnv(
      reportContext({
        success: false,
        fail_reason: 'r',
        exit_code: -100,
        command: ['a', 'b'],
        stdout: 'x'.repeat(SHELL_REPORTER_MAX_CHARS + 1),
        cpu_seconds: 2,
        max_rss_bytes: 1024,
      }),
    );
    expect(env.CRONSTABLE_FAILED).toBe('1');
    expect(env.CRONSTABLE_RETCODE).toBe('-100');
    expect(env.CRONSTABLE_JOB_COMMAND).toBe('a b');
    expect(env.CRONSTABLE_STDOUT).toHaveLength(SHELL_REPORTER_MAX_CHARS);
    expect(env.CRONSTABLE_STDOUT_TRUNCATED).toBe('1');
    expect(env.CRONSTABLE_STDERR).toBe('');
    expect(env.CRONSTABLE_STDERR_TRUNCATED).toBe('0');
    expect(env.CRONSTABLE_CPU_SECONDS).toBe('2.0');
    expect(env.CRONSTABLE_MAX_RSS_BYTES).toBe('1024');
  });

  it('maps the three command forms', () => {
    expect(shellReporterArgv(['a', 'b c'], '/bin/bash')).toEqual(['a', 'b c']);
    expect(shellReporterArgv('echo hi', '/bin/bash')).toEqual(['/bin/bash', '-c', 'echo hi']);
    expect(shellReporterArgv('echo hi', undefined)).toEqual(['/bin/sh', '-c', 'echo hi']);
    expect(shellReporterArgv('echo hi', '')).toEqual(['/bin/sh', '-c', 'echo hi']);
  });
});

describe('sentry helpers', () => {
  it('parses DSNs with and without a path prefix and port', () => {
    expect(parseDsn('https://abc@o1.ingest.example.com/42')).toMatchObject({
      publicKey: 'abc',
      projectId: '42',
      envelopeUrl: 'https://o1.ingest.example.com/api/42/envelope/',
    });
    expect(parseDsn('http://k:s@127.0.0.1:9000/sub/path/7')).toMatchObject({
      publicKey: 'k',
      secretKey: 's',
      envelopeUrl: 'http://127.0.0.1:9000/sub/path/api/7/envelope/',
    });
  });

  it('rejects malformed DSNs without echoing them', () => {
    for (const bad of ['not a url secretkey', 'https://host/1', 'https://key@host/', 'ftp://key@host/1']) {
      expect(() => parseDsn(bad)).toThrow(/DSN/);
      try {
        parseDsn(bad);
      } catch (e) {
        expect((e as Error).message).not.toContain('key');
      }
    }
  });

  it('maps levels and truncates strings', () => {
    expect(sentryLevel('critical')).toBe('fatal');
    expect(sentryLevel('warning')).toBe('warning');
    expect(sentryLevel(undefined)).toBe('error');
    expect(truncateString('abcdef', 5)).toBe('ab...');
    expect(truncateString('abc', 5)).toBe('abc');
  });
});

describe('webhook helpers', () => {
  it('lets configured headers override Content-Type case-insensitively', () => {
    const h = webhookHeaders('application/json', { 'content-type': 'text/plain', 'X-A': '1' });
    expect(h.get('Content-Type')).toBe('text/plain');
    expect(h.get('x-a')).toBe('1');
  });

  it('masks URL fragments', () => {
    expect(maskUrl('connect to hooks.example.com failed', ['hooks.example.com'])).toBe(
      'connect to <webhook url> failed',
    );
  });
});

describe('statsd datagrams', () => {
  it('start and stop texts', () => {
    expect(startDatagram('a.b')).toBe('a.b.start:1|g\n');
    expect(stopDatagram('p', { success: false, durationMs: 1234.6 })).toBe(
      'p.stop:1|g\np.success:0|g\np.duration:1235|ms\n',
    );
    expect(stopDatagram('p', { success: true, durationMs: 5, cpuMs: 12.4, maxRssBytes: 2048 })).toBe(
      'p.stop:1|g\np.success:1|g\np.duration:5|ms\np.cpu:12|ms\np.max_rss:2048|g\n',
    );
  });
});
