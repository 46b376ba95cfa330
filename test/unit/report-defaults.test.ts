// Golden tests of the default templates against the exact strings of spec 02 §9.5.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BODY,
  DEFAULT_SENTRY_BODY,
  DEFAULT_SENTRY_FINGERPRINT,
  DEFAULT_SUBJECT,
  DEFAULT_WEBHOOK_BODY,
} from '../../src/report/defaults.ts';
import { renderTemplate, templateVars } from '../../src/report/template.ts';
import type { ReportContext } from '../../src/report/types.ts';
import { reportContext } from '../helpers/report-kit.ts';

const render = (src: string, ctx: ReportContext) => renderTemplate(src, templateVars(ctx));

const failedBoth = reportContext({
  success: false,
  fail_reason: 'failsWhen=nonzeroReturn and retcode=3',
  exit_code: 3,
  stdout: 'out\n',
  stderr: 'err\n',
});
const successNothing = reportContext();
const successHi = reportContext({ stdout: 'hi\n' });

describe('default subject', () => {
  it('says completed or failed', () => {
    expect(render(DEFAULT_SUBJECT, successNothing)).toBe("Cron job 'j' completed");
    expect(render(DEFAULT_SUBJECT, failedBoth)).toBe("Cron job 'j' failed");
  });
});

describe('default body', () => {
  it('failure with both streams', () => {
    expect(render(DEFAULT_BODY, failedBoth)).toBe(
      '\n(job failed because failsWhen=nonzeroReturn and retcode=3)\n\nSTDOUT:\n---\nout\n\n---\nSTDERR:\nerr\n\n',
    );
  });

  it('success with nothing captured', () => {
    expect(render(DEFAULT_BODY, successNothing)).toBe('\n\n(no output was captured)\n');
  });

  it('success with stdout only', () => {
    expect(render(DEFAULT_BODY, successHi)).toBe('\n\nhi\n\n');
  });

  it('stderr only, verbatim', () => {
    expect(render(DEFAULT_BODY, reportContext({ stderr: 'oops' }))).toBe('\n\noops\n');
  });

  it('empty strings count as no output', () => {
    expect(render(DEFAULT_BODY, reportContext({ stdout: '', stderr: '' }))).toBe(
      '\n\n(no output was captured)\n',
    );
  });
});

describe('default sentry body', () => {
  it('is the subject, a newline and the body', () => {
    expect(render(DEFAULT_SENTRY_BODY, successNothing)).toBe(
      "Cron job 'j' completed\n\n\n(no output was captured)\n",
    );
    expect(render(DEFAULT_SENTRY_BODY, failedBoth)).toBe(
      `Cron job 'j' failed\n${render(DEFAULT_BODY, failedBoth)}`,
    );
  });

  it('default fingerprint', () => {
    const fp = DEFAULT_SENTRY_FINGERPRINT.map((t) => render(t, successNothing));
    expect(fp).toEqual(['cronstable', 'host1', 'j']);
  });
});

describe('default webhook body', () => {
  it('matches the spec example', () => {
    expect(render(DEFAULT_WEBHOOK_BODY, successNothing)).toBe(
      '{"text": "Cron job \\u0027j\\u0027 completed\\n\\n\\n(no output was captured)\\n\\n"}',
    );
  });

  it('is JSON whose text is the sentry text plus one newline', () => {
    for (const ctx of [failedBoth, successNothing, successHi]) {
      const parsed = JSON.parse(render(DEFAULT_WEBHOOK_BODY, ctx));
      expect(Object.keys(parsed)).toEqual(['text']);
      expect(parsed.text).toBe(`${render(DEFAULT_SENTRY_BODY, ctx)}\n`);
    }
  });
});
