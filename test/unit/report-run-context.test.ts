// Spec 09 §6: the run context (host, schedule, started_at, run_id) in every report's template
// variables and in the shell reporter's environment, with the values a context without a run gets.
import { afterEach, describe, expect, it } from 'vitest';
import { shellReporterEnv } from '../../src/report/index.ts';
import { renderTemplate, templateVars } from '../../src/report/template.ts';
import { isoUtc } from '../../src/util/iso-utc.ts';
import { reportContext } from '../helpers/report-kit.ts';

const RUN = {
  host: 'node-a',
  started_at: '2026-07-05T04:00:00.250000+00:00',
  run_id: 'ab'.repeat(16),
  schedule: '0 4 * * *',
};

describe('the run context of a report (spec 09 §6)', () => {
  const saved = process.env.HOSTNAME;
  afterEach(() => {
    process.env.HOSTNAME = saved;
  });

  it('renders {{ host }} {{ schedule }} {{ started_at }} {{ run_id }}', () => {
    const vars = templateVars(reportContext(RUN));
    expect(renderTemplate('{{ host }} {{ schedule }} {{ started_at }} {{ run_id }}', vars)).toBe(
      `node-a 0 4 * * * 2026-07-05T04:00:00.250000+00:00 ${'ab'.repeat(16)}`,
    );
  });

  it('exports CRONSTABLE_HOST, _STARTED_AT and _RUN_ID beside _JOB_SCHEDULE', () => {
    const env = shellReporterEnv(reportContext(RUN));
    expect(env.CRONSTABLE_HOST).toBe('node-a');
    expect(env.CRONSTABLE_STARTED_AT).toBe(RUN.started_at);
    expect(env.CRONSTABLE_RUN_ID).toBe(RUN.run_id);
    expect(env.CRONSTABLE_JOB_SCHEDULE).toBe('0 4 * * *');
  });

  it('without a run: host is the daemon HOSTNAME (never null), the rest null / empty', () => {
    process.env.HOSTNAME = 'daemon-host';
    const ctx = reportContext();
    expect(templateVars(ctx)).toMatchObject({ host: 'daemon-host', started_at: null, run_id: null });
    const env = shellReporterEnv(ctx);
    expect(env.CRONSTABLE_HOST).toBe('daemon-host');
    expect(env.CRONSTABLE_STARTED_AT).toBe('');
    expect(env.CRONSTABLE_RUN_ID).toBe('');
  });

  it('started_at is ISO-8601 UTC in the web API form (06 §2.4)', () => {
    expect(isoUtc(Date.UTC(2026, 6, 5, 4, 0, 0))).toBe('2026-07-05T04:00:00+00:00');
    expect(isoUtc(Date.UTC(2026, 6, 5, 4, 0, 0, 7))).toBe('2026-07-05T04:00:00.007000+00:00');
  });
});
