// The pure parts of the MCP job and node tools: paging, Prometheus sample parsing, the incident view
// (the dashboard's own verdict functions over `/jobs` rows), and the argument schemas' messages.
import { describe, expect, it } from 'vitest';
import type { JobRow } from '../../src/api/jobs.ts';
import { failureBanner } from '../../src/dashboard/status.ts';
import { confirmArg, requiredString } from '../../src/mcp/tools/args.ts';
import { incidentView } from '../../src/mcp/tools/incident.ts';
import { jobTools } from '../../src/mcp/tools/jobs.ts';
import { nodeTools } from '../../src/mcp/tools/node.ts';
import { paginate } from '../../src/mcp/tools/paging.ts';
import { matchSamples, parseSampleLine } from '../../src/mcp/tools/prom-samples.ts';
import { apiJob } from '../helpers/api-job.ts';

describe('paginate', () => {
  const items = ['a', 'b', 'c', 'd', 'e'];
  it('pages with nextOffset = offset + returned, null at the end', () => {
    expect(paginate(items, undefined, 2)).toEqual({
      items: ['a', 'b'],
      page: { offset: 0, limit: 2, total: 5, returned: 2, nextOffset: 2 },
    });
    expect(paginate(items, 4, 2).page).toEqual({
      offset: 4,
      limit: 2,
      total: 5,
      returned: 1,
      nextOffset: null,
    });
    expect(paginate(items, 3, 2).page.nextOffset).toBe(null);
  });
  it('treats a negative offset as 0 and answers an empty page past the end', () => {
    expect(paginate(items, -3, 1).page).toEqual({
      offset: 0,
      limit: 1,
      total: 5,
      returned: 1,
      nextOffset: 1,
    });
    expect(paginate(items, 9, 3)).toEqual({
      items: [],
      page: { offset: 9, limit: 3, total: 5, returned: 0, nextOffset: null },
    });
  });
});

describe('Prometheus samples', () => {
  const text = [
    '# HELP cronstable_runs_total Runs.',
    '# TYPE cronstable_runs_total counter',
    'cronstable_runs_total{job_name="a b",status="success"} 3',
    'cronstable_runs_total{job_name="we}ird \\"q\\"",status="failure"} 1 1700000000000',
    '',
    'cronstable_start_time_seconds 1.7e9',
    'cronstable_job_last_duration_seconds{job_name="x"} NaN',
    'cronstable_duration_seconds_bucket{job_name="x",le="+Inf"} +Inf',
  ].join('\n');

  it('keeps the raw label text and the value as a string, skipping comments and blanks', () => {
    const all = matchSamples(text, null);
    expect(all).toEqual([
      { name: 'cronstable_runs_total', labels: '{job_name="a b",status="success"}', value: '3' },
      { name: 'cronstable_runs_total', labels: '{job_name="we}ird \\"q\\"",status="failure"}', value: '1' },
      { name: 'cronstable_start_time_seconds', labels: '', value: '1.7e9' },
      { name: 'cronstable_job_last_duration_seconds', labels: '{job_name="x"}', value: 'NaN' },
      { name: 'cronstable_duration_seconds_bucket', labels: '{job_name="x",le="+Inf"}', value: '+Inf' },
    ]);
  });

  it('matches metric names case-insensitively, not labels', () => {
    expect(matchSamples(text, 'RUNS_TOTAL').map((s) => s.value)).toEqual(['3', '1']);
    expect(matchSamples(text, 'success')).toEqual([]);
  });

  it('rejects lines that are not samples', () => {
    expect(parseSampleLine('# comment')).toBe(null);
    expect(parseSampleLine('metric{unclosed="x" 1')).toBe(null);
    expect(parseSampleLine('metric_without_value')).toBe(null);
  });
});

function row(
  name: string,
  over: Partial<JobRow> = {},
  last?: Partial<NonNullable<JobRow['last_run']>>,
): JobRow {
  return {
    ...apiJob(name, { schedule: '* * * * *', command: 'true', scheduled_in: 30 }),
    schedule_findings: [],
    last_run: last
      ? {
          outcome: 'success',
          exit_code: 0,
          started_at: null,
          finished_at: '2026-07-05T09:00:00Z',
          duration: 1,
          fail_reason: null,
          resources: null,
          ...last,
        }
      : null,
    ...over,
  };
}

const T0 = Date.parse('2026-07-05T09:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

describe('incidentView', () => {
  it('says none when nothing fails, and keeps every finish in the timeline', () => {
    const v = incidentView([row('a', {}, {}), row('b'), row('c', { enabled: false })], T0, null, null);
    expect(v.verdict).toBe('none');
    expect(v.headline).toBe(null);
    expect(v.failing).toEqual([]);
    expect(v.summary).toEqual({ total: 3, running: 0, failing: 0, paused: 0, scheduled: 2, disabled: 1 });
    expect(v.timeline.map((e) => e.name)).toEqual(['a']);
  });

  it('words a single failure as the dashboard banner does', () => {
    const rows = [
      row('db', {}, { outcome: 'failure', exit_code: 3, fail_reason: 'exit code 3' }),
      row('ok', {}, {}),
    ];
    const v = incidentView(rows, T0, null, 'db');
    expect(v.verdict).toBe('single');
    expect(v.headline).toBe('JOB FAILING — db · exit 3');
    expect(v.failing).toEqual([
      { name: 'db', exit_code: 3, reason: 'exit code 3', signature: 'exit 3', finished_at: at(0) },
    ]);
    expect(v.focus).toMatchObject({ name: 'db', status: 'failed', failing: true, group: null });
    expect(v.focus?.last?.outcome).toBe('failure');
  });

  it('finds one cause when most failures share a signature within 60 s, matching failureBanner', () => {
    const rows = [
      row('a', {}, { outcome: 'failure', exit_code: 69, fail_reason: 'exit code 69', finished_at: at(0) }),
      row('b', {}, { outcome: 'failure', exit_code: 69, fail_reason: 'exit code 69', finished_at: at(20) }),
      row('c', {}, { outcome: 'failure', exit_code: 1, fail_reason: 'timed out', finished_at: at(40) }),
      row('d', {}, { finished_at: at(50) }),
    ];
    const v = incidentView(rows, T0 + 60_000, null, 'b');
    const banner = failureBanner(rows)!;
    expect(v.verdict).toBe(banner.correlation.verdict);
    expect(v.verdict).toBe('one-cause');
    expect(v.headline).toBe('FLEET EVENT — 3 jobs failing');
    expect(v.detail).toBe('2 of 3 share a failure signature (exit 69) within 60 s — likely one cause');
    expect(v.groups).toEqual([{ signature: 'exit 69', names: ['a', 'b'], first: at(0), last: at(20) }]);
    expect(v.timeline.map((e) => [e.name, e.group, e.gap_seconds])).toEqual([
      ['d', null, 10],
      ['c', null, 20],
      ['b', 'exit 69', 20],
      ['a', 'exit 69', null],
    ]);
    expect(v.focus?.group?.names).toEqual(['a', 'b']);
  });

  it('calls spread-out failures independent', () => {
    const rows = [
      row('a', {}, { outcome: 'failure', exit_code: 2, fail_reason: null, finished_at: at(0) }),
      row('b', {}, { outcome: 'failure', exit_code: 2, fail_reason: null, finished_at: at(600) }),
    ];
    const v = incidentView(rows, T0 + 700_000, null, null);
    expect(v.verdict).toBe('independent');
    expect(v.detail).toBe('no shared failure signature — likely independent');
  });

  it('limits only the timeline to the last `hours`', () => {
    const rows = [
      row('old', {}, { outcome: 'failure', exit_code: 1, finished_at: at(-7200) }),
      row('new', {}, { finished_at: at(-60) }),
      row('mid', {}, { finished_at: at(-1800) }),
    ];
    const v = incidentView(rows, T0, 1, null);
    expect(v.verdict).toBe('single');
    expect(v.hours).toBe(1);
    expect(v.timeline.map((e) => [e.name, e.gap_seconds])).toEqual([
      ['new', 1740],
      ['mid', null],
    ]);
  });
});

describe('tool catalogue and argument schemas', () => {
  it('exports the tools in catalogue order with the spec titles and kinds', () => {
    expect(jobTools.map((t) => [t.name, t.title, t.toolset])).toEqual([
      ['cron_get_status', 'Job status', 'observe'],
      ['cron_list_jobs', 'List jobs', 'observe'],
      ['cron_get_job', 'Get one job', 'observe'],
      ['cron_list_runs', 'Run history', 'observe'],
      ['cron_get_job_trends', 'SLA trends', 'observe'],
      ['cron_get_job_resources', 'Resource usage', 'observe'],
      ['cron_tail_job_logs', 'Tail job logs', 'observe'],
      ['cron_run_job', 'Run job now', 'act'],
      ['cron_cancel_job', 'Cancel job', 'act'],
    ]);
    expect(jobTools.find((t) => t.name === 'cron_run_job')!.mutation).toEqual({
      destructive: false,
      idempotent: false,
      gerund: 'running',
    });
    expect(jobTools.find((t) => t.name === 'cron_cancel_job')!.mutation).toEqual({
      destructive: true,
      idempotent: true,
      gerund: 'cancelling',
    });
    expect(nodeTools.map((t) => t.name)).toEqual([
      'cron_get_cluster',
      'cron_get_fleet',
      'cron_get_node',
      'cron_query_metrics',
      'cron_get_version',
      'cron_get_incident',
    ]);
    for (const t of [...jobTools, ...nodeTools]) {
      expect(t.mutation === false, t.name).toBe(t.toolset !== 'act');
      // Strict objects: unknown keys are refused.
      expect(t.input.safeParse({ nope: 1 }).success, t.name).toBe(false);
    }
  });

  it("names the missing required string in the reference's words", () => {
    const name = requiredString('name');
    for (const bad of [undefined, '', 5]) {
      const r = name.safeParse(bad);
      expect(r.success).toBe(false);
      expect(r.error!.issues[0]!.message).toBe("missing or empty required string argument: 'name'");
    }
  });

  it('takes only JSON booleans for confirm, and its refusal says how to proceed', () => {
    expect(confirmArg.safeParse(true).success).toBe(true);
    expect(confirmArg.safeParse(undefined).success).toBe(true);
    for (const bad of ['true', 1]) {
      const r = confirmArg.safeParse(bad);
      expect(r.success).toBe(false);
      expect(r.error!.issues[0]!.message).toContain('confirm=true');
    }
  });
});
