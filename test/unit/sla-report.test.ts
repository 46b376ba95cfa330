// The `onLate` report (spec 09 §2.7): vector 18's four default renderings, the breach variables
// in templates and the shell environment, and the defaults yielding to what the user set.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { DEFAULT_SENTRY_BODY } from '../../src/report/defaults.ts';
import { shellReporterEnv } from '../../src/report/shell.ts';
import {
  LATE_BODY,
  LATE_SUBJECT,
  LATE_WEBHOOK_BODY,
  lateReportContext,
  withLateDefaults,
} from '../../src/report/sla.ts';
import { renderTemplate, templateVars } from '../../src/report/template.ts';
import { writeTree } from '../helpers/tmp.ts';

function nightly(extra = '') {
  const dir = writeTree({
    'c.yaml': `jobs:\n  - name: nightly\n    command: backup.sh\n    schedule:\n      minute: "0"\n      hour: "4"\n    sla:\n      lateAfterSeconds: 900\n${extra}`,
  });
  return loadConfig(join(dir, 'c.yaml'), { cwd: dir }).jobs[0]!;
}

const breach = { check: 'lateAfter', thresholdSeconds: 900, observedSeconds: 960.25, lastSuccessAt: null };

describe('vector 18: the onLate defaults for nightly, lateAfter, 900, 960.25, no success', () => {
  const vars = templateVars(lateReportContext(nightly(), breach, 'h1'));
  it('subject', () => {
    expect(renderTemplate(LATE_SUBJECT, vars)).toBe("Cron job 'nightly' is overdue (lateAfter)");
  });
  it('mail body', () => {
    expect(renderTemplate(LATE_BODY, vars)).toBe(
      '\nSLA check: lateAfter\nThreshold: 900 seconds\nObserved: 960.25 seconds\nLast success: (none recorded)\n',
    );
  });
  it('webhook body', () => {
    expect(renderTemplate(LATE_WEBHOOK_BODY, vars)).toBe(
      '{"text": "Cron job \\u0027nightly\\u0027 is overdue (lateAfter)\\n\\nSLA check: lateAfter\\nThreshold: 900 seconds\\nObserved: 960.25 seconds\\nLast success: (none recorded)\\n\\n"}',
    );
  });
  it('sentry body (the standard one)', () => {
    expect(renderTemplate(DEFAULT_SENTRY_BODY, vars)).toBe(
      "Cron job 'nightly' failed\n\n(job failed because sla: lateAfter breached)\n\n(no output was captured)\n",
    );
  });
});

describe('the breach context', () => {
  it('an integral observation prints as a float; a known success prints its instant', () => {
    const vars = templateVars(
      lateReportContext(
        nightly(),
        { ...breach, observedSeconds: 130, lastSuccessAt: '2026-07-20T04:00:00.000Z' },
        'h1',
      ),
    );
    expect(
      renderTemplate(
        '{{ observed_seconds }} {{ observed_seconds > 100 }} {{ observed_seconds | tojson }}',
        vars,
      ),
    ).toBe('130.0 True 130.0');
    expect(renderTemplate(LATE_BODY, vars)).toContain('Last success: 2026-07-20T04:00:00.000Z\n');
    expect(renderTemplate('{{ host }}|{{ run_id }}|{{ started_at }}|{{ environment.HOSTNAME }}', vars)).toBe(
      'h1|None|None|h1',
    );
  });

  it('the shell reporter exports the breach, empty run facts, and an empty retcode', () => {
    const env = shellReporterEnv(lateReportContext(nightly(), { ...breach, observedSeconds: 130 }, 'h1'));
    expect(env).toMatchObject({
      CRONSTABLE_SLA_CHECK: 'lateAfter',
      CRONSTABLE_SLA_THRESHOLD_SECONDS: '900',
      CRONSTABLE_SLA_OBSERVED_SECONDS: '130.0',
      CRONSTABLE_LAST_SUCCESS_AT: '',
      CRONSTABLE_FAILED: '1',
      CRONSTABLE_FAIL_REASON: 'sla: lateAfter breached',
      CRONSTABLE_RETCODE: '',
      CRONSTABLE_RUN_ID: '',
      CRONSTABLE_STARTED_AT: '',
      CRONSTABLE_HOST: 'h1',
      CRONSTABLE_STDOUT_TRUNCATED: '0',
      CRONSTABLE_JOB_SCHEDULE: '0 4 * * *',
    });
  });

  it('every shell report exports the four SLA variables, empty outside onLate', () => {
    const job = nightly();
    const ctx = { ...lateReportContext(job, breach, 'h'), success: true, fail_reason: null, sla: undefined };
    const env = shellReporterEnv(ctx);
    for (const k of [
      'CRONSTABLE_SLA_CHECK',
      'CRONSTABLE_SLA_THRESHOLD_SECONDS',
      'CRONSTABLE_SLA_OBSERVED_SECONDS',
      'CRONSTABLE_LAST_SUCCESS_AT',
    ])
      expect(env[k]).toBe('');
  });

  it('a template the user set wins over the overdue default', () => {
    const job = nightly(
      '    onLate:\n      report:\n        mail:\n          subject: late {{ name }}\n          to: a@b\n          from: c@d\n',
    );
    const block = withLateDefaults(job.onLate.report);
    expect(block.mail?.subject).toBe('late {{ name }}');
    expect(block.mail?.body).toBe(LATE_BODY);
    expect(block.webhook?.body).toBe(LATE_WEBHOOK_BODY);
    expect(job.onLate.report.sentry?.fingerprint).toEqual(['cronstable', 'sla', '{{ name }}']);
  });
});
