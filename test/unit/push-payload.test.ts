// The alert plaintext (spec 10 §6.3): fields by kind, the fit to 2202 bytes in the spec's order
// (oldest log lines, halving long texts, dropping run facts, never name/kind/host), the collapse id.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  alertFromContext,
  collapseId,
  fitPlaintext,
  isoSeconds,
  logTail,
  MAX_PLAINTEXT_BYTES,
  type PushPlaintext,
  plaintextBytes,
  testAlert,
} from '../../src/report/push/payload.ts';
import type { ReportContext } from '../../src/report/types.ts';

const NOW = Date.parse('2026-07-05T09:30:12.345Z');

function ctx(over: Partial<ReportContext> = {}): ReportContext {
  return {
    name: 'nightly',
    success: false,
    fail_reason: 'exit code 3',
    stdout: 'out1\nout2\n',
    stderr: 'err1\nerr2\n',
    exit_code: 3,
    command: 'false',
    shell: '/bin/sh',
    environment: null,
    cpu_seconds: null,
    cpu_user_seconds: null,
    cpu_system_seconds: null,
    max_rss_bytes: null,
    schedule: '0 3 * * *',
    host: 'node-a',
    started_at: '2026-07-05T09:30:00.000000Z',
    run_id: 'r-123',
    ...over,
  };
}

const base = (over: Partial<PushPlaintext> = {}): PushPlaintext => ({
  v: 1,
  kind: 'failure',
  name: 'nightly',
  success: false,
  host: 'node-a',
  ts: '2026-07-05T09:30:12Z',
  ...over,
});

describe('alert plaintext', () => {
  it('carries the job fields and the stderr tail', () => {
    expect(alertFromContext(ctx(), true, NOW)).toEqual(
      base({
        run_id: 'r-123',
        schedule: '0 3 * * *',
        started_at: '2026-07-05T09:30:00.000000Z',
        exit_code: 3,
        fail_reason: 'exit code 3',
        log_tail: 'err1\nerr2',
      }),
    );
    expect(alertFromContext(ctx({ stderr: '' }), true, NOW).log_tail).toBe('out1\nout2');
    expect(alertFromContext(ctx(), false, NOW).log_tail).toBeUndefined();
    expect(alertFromContext(ctx({ success: true, fail_reason: null }), true, NOW)).toMatchObject({
      kind: 'success',
      success: true,
    });
  });

  it('keeps the last 40 lines', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`);
    const tail = logTail(`${lines.join('\n')}\n`, null)!.split('\n');
    expect(tail).toHaveLength(40);
    expect(tail[0]).toBe('line 60');
    expect(logTail(null, '')).toBeUndefined();
  });

  it('builds SLA and event alerts with their own fields', () => {
    const sla = alertFromContext(
      ctx({
        stdout: null,
        stderr: null,
        exit_code: null,
        run_id: null,
        started_at: null,
        fail_reason: 'sla: lateAfter breached',
        sla: { check: 'lateAfter', thresholdSeconds: 60, observedSeconds: 95, lastSuccessAt: null },
      }),
      true,
      NOW,
    );
    expect(sla).toMatchObject({
      kind: 'sla',
      sla_check: 'lateAfter',
      threshold_seconds: 60,
      observed_seconds: 95,
    });
    expect(sla.log_tail).toBeUndefined();
    const ev = alertFromContext(
      ctx({
        name: 'etl',
        host: undefined,
        stdout: null,
        stderr: null,
        exit_code: null,
        run_id: null,
        started_at: null,
        schedule: '',
        extra: {
          host: 'node-b',
          event: 'dag_failure',
          subject: 'S',
          message: 'M',
          dag: 'etl',
          run_key: 'k',
          run_id: 'id9',
        },
      }),
      true,
      NOW,
    );
    expect(ev).toEqual(
      base({
        kind: 'event',
        name: 'etl',
        host: 'node-b',
        run_id: 'id9',
        event: 'dag_failure',
        subject: 'S',
        message: 'M',
        dag: 'etl',
        run_key: 'k',
      }),
    );
    expect(testAlert('h', NOW)).toEqual({
      v: 1,
      kind: 'test',
      name: 'test',
      success: true,
      host: 'h',
      ts: '2026-07-05T09:30:12Z',
      message: 'test alert from cronstable',
    });
    expect(isoSeconds(NOW)).toBe('2026-07-05T09:30:12Z');
  });
});

describe('fitting to 2202 bytes', () => {
  it('leaves a small alert alone', () => {
    const p = base({ log_tail: 'a\nb' });
    expect(fitPlaintext(p)).toEqual({ plaintext: p, fits: true });
  });

  it('drops the fewest oldest log lines', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `${String(i).padStart(2, '0')} ${'x'.repeat(90)}`);
    const { plaintext, fits } = fitPlaintext(base({ log_tail: lines.join('\n') }));
    expect(fits).toBe(true);
    expect(plaintextBytes(plaintext)).toBeLessThanOrEqual(MAX_PLAINTEXT_BYTES);
    const kept = plaintext.log_tail!.split('\n');
    expect(kept.at(-1)).toBe(lines.at(-1));
    // One more line would not have fit: the fewest were dropped.
    const oneMore = lines.slice(lines.length - kept.length - 1).join('\n');
    expect(plaintextBytes({ ...plaintext, log_tail: oneMore })).toBeGreaterThan(MAX_PLAINTEXT_BYTES);
  });

  it('drops the log_tail key when not even one line fits, then halves long texts down to 64', () => {
    const huge = 'y'.repeat(3000);
    const { plaintext, fits } = fitPlaintext(base({ log_tail: huge, fail_reason: 'f'.repeat(4000) }));
    expect(fits).toBe(true);
    expect('log_tail' in plaintext).toBe(false);
    expect(plaintext.fail_reason!.length).toBeGreaterThanOrEqual(64);
    expect(plaintext.fail_reason!.length).toBeLessThan(4000);
    expect(plaintext.run_id).toBeUndefined();
  });

  it('halves in the order message, fail_reason, subject and counts UTF-8 bytes', () => {
    const { plaintext } = fitPlaintext(
      base({
        kind: 'event',
        message: 'é'.repeat(1000),
        fail_reason: 'r'.repeat(300),
        subject: 's'.repeat(300),
      }),
    );
    expect(plaintext.message!.length).toBeLessThan(1000);
    expect(plaintext.subject).toBe('s'.repeat(300));
    expect(plaintextBytes(plaintext)).toBeLessThanOrEqual(MAX_PLAINTEXT_BYTES);
  });

  it('then drops schedule, started_at, run_id, and never cuts name, kind or host', () => {
    const p = base({
      name: 'n'.repeat(1500),
      host: 'h'.repeat(500),
      schedule: 's'.repeat(100),
      started_at: '2026-07-05T09:30:00.000000Z',
      run_id: 'r'.repeat(40),
      message: 'm'.repeat(64),
    });
    const { plaintext, fits } = fitPlaintext(p);
    expect(fits).toBe(true);
    expect(plaintext.schedule).toBeUndefined();
    expect(plaintext.name).toBe(p.name);
    expect(plaintext.host).toBe(p.host);
    expect(plaintext.message).toBe(p.message);
    const tooBig = fitPlaintext(base({ name: 'n'.repeat(2300) }));
    expect(tooBig.fits).toBe(false);
    expect(tooBig.plaintext.name).toHaveLength(2300);
  });
});

describe('collapse id', () => {
  it('is the first 32 hex of SHA-256(salt NUL sorted compact JSON of the non-empty keys)', () => {
    const p = base({ run_id: 'r1', schedule: 'ignored', subject: 'ignored' });
    const expected = createHash('sha256')
      .update('salt\0{"kind":"failure","name":"nightly","run_id":"r1"}')
      .digest('hex')
      .slice(0, 32);
    expect(collapseId('salt', p)).toBe(expected);
    expect(collapseId('other', p)).not.toBe(expected);
  });
});
