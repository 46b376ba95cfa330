// The pure parts of the MCP schedule, DAG and state tools (spec 07 §4, §7): the backfill dry run's
// walk, the model's redaction of state documents and the inspector's refusals, the schedule
// summaries, and how cron_why_no_run reads `at`.
import { describe, expect, it } from 'vitest';
import { modelValueType, redactForModel, valueSize } from '../../src/api/state.ts';
import type { DagConfig } from '../../src/config/types.ts';
import {
  BAD_DATE_RANGE,
  NO_SUCH_SCHEDULED_DAG,
  planBackfill,
  previewBackfill,
} from '../../src/dag/backfill.ts';
import {
  duplicatesText,
  instantOf,
  pressureText,
  previewText,
  whyText,
} from '../../src/mcp/tools/schedule-text.ts';
import { stateRefusal } from '../../src/mcp/tools/state.ts';
import { parseCron, resolveFrame } from '../../src/schedule/index.ts';
import { loadDags } from './dag-fixtures.ts';

const task = '    tasks:\n      - id: a\n        command: echo a\n';
const [etl, manual, nightly] = loadDags(
  `  - name: etl\n    schedule: "*/15 * * * *"\n${task}` +
    `  - name: release\n${task}` +
    `  - name: nightly\n    schedule: "30 1 * * *"\n    timezone: America/New_York\n    dst:\n      repeated: both\n${task}`,
) as [DagConfig, DagConfig, DagConfig];

describe('backfill dry run', () => {
  it('walks the instants the real backfill creates, creating nothing', () => {
    const from = '2026-07-05T09:00:00Z';
    const to = '2026-07-05T10:00:00Z';
    const plan = planBackfill(etl, from, to);
    const preview = previewBackfill(etl, from, to);
    expect(plan.ok && preview.ok).toBe(true);
    if (!plan.ok || !preview.ok) return;
    expect(preview).toEqual({
      ok: true,
      wouldCreate: plan.created,
      firstInstant: '2026-07-05T09:00:00+00:00',
      lastInstant: '2026-07-05T10:00:00+00:00',
    });
    expect(preview.wouldCreate).toBe(5);
  });

  it('follows the DAG DST policy: a repeated wall time under `both` is walked twice', () => {
    const p = previewBackfill(nightly, '2026-11-01T00:00:00Z', '2026-11-01T12:00:00Z');
    expect(p).toEqual({
      ok: true,
      wouldCreate: 2,
      firstInstant: '2026-11-01T05:30:00+00:00',
      lastInstant: '2026-11-01T06:30:00+00:00',
    });
  });

  it('caps at 100 instants like the real run and reports an empty window as 0 with no instants', () => {
    const p = previewBackfill(etl, '2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z');
    expect(p.ok && p.wouldCreate).toBe(100);
    expect(previewBackfill(etl, '2026-01-01T00:01:00Z', '2026-01-01T00:02:00Z')).toEqual({
      ok: true,
      wouldCreate: 0,
      firstInstant: null,
      lastInstant: null,
    });
  });

  it('refuses what the real run refuses: unscheduled or unknown DAGs and bad ranges', () => {
    expect(previewBackfill(manual, '2026-01-01', '2026-01-02')).toEqual({
      ok: false,
      reason: NO_SUCH_SCHEDULED_DAG,
    });
    expect(previewBackfill(undefined, '2026-01-01', '2026-01-02')).toEqual({
      ok: false,
      reason: NO_SUCH_SCHEDULED_DAG,
    });
    expect(previewBackfill(etl, '2026-01-02', '2026-01-01')).toEqual({ ok: false, reason: BAD_DATE_RANGE });
    expect(previewBackfill(etl, 'yesterday', '2026-01-01')).toEqual({ ok: false, reason: BAD_DATE_RANGE });
  });
});

describe('state documents as the model sees them (spec 07 §7)', () => {
  it('names JSON types the way the reference does', () => {
    expect(['a', 3, 3.5, true, [1], { a: 1 }, null].map(modelValueType)).toEqual([
      'str',
      'int',
      'float',
      'bool',
      'list',
      'dict',
      'NoneType',
    ]);
  });

  it('measures the compact JSON in bytes, null when there is none', () => {
    expect(valueSize({ a: [1, 2] })).toBe('{"a":[1,2]}'.length);
    expect(valueSize('é')).toBe(4); // two quotes and a two-byte character
    expect(valueSize(null)).toBe(4);
    expect(valueSize(undefined)).toBeNull();
    expect(valueSize(10n)).toBeNull();
  });

  it('replaces KV values by type and size and keeps cursor and idempotency documents whole', () => {
    const kv = redactForModel('kv', { key: 'token', updatedAt: 5, value: { secret: 'hunter2' } });
    expect(kv).toEqual({ key: 'token', updatedAt: 5, valueType: 'dict', valueSize: 20 });
    expect(JSON.stringify(kv)).not.toContain('hunter2');
    expect(redactForModel('cursor', { key: 'c', updatedAt: 1, body: { value: 42 } })).toEqual({
      key: 'c',
      updatedAt: 1,
      body: { value: 42 },
    });
    expect(
      redactForModel('idem', { key: 'i', updatedAt: 1, body: { claimedAt: 1, expiresAt: null } }),
    ).toEqual({
      key: 'i',
      updatedAt: 1,
      body: { claimedAt: 1, expiresAt: null },
    });
  });

  it('refuses in the spec order: both given, no store, empty or log stream', () => {
    expect(stateRefusal({ ns: 'kv/a', stream: 'runs/x' }, true)).toBe('pass at most one of `ns` or `stream`');
    expect(stateRefusal({ ns: 'kv/a', stream: 'runs/x' }, false)).toBe(
      'pass at most one of `ns` or `stream`',
    );
    expect(stateRefusal({}, false)).toBeNull();
    expect(stateRefusal({ ns: 'kv/a' }, false)).toBe('state store is not configured');
    expect(stateRefusal({ stream: '' }, true)).toBe('a stream is required');
    expect(stateRefusal({ stream: 'logs' }, true)).toBe(
      'log streams carry raw output and are not inspectable',
    );
    expect(stateRefusal({ stream: 'logs/hello' }, true)).toBe(
      'log streams carry raw output and are not inspectable',
    );
    expect(stateRefusal({ stream: 'logsheet' }, true)).toBeNull();
    expect(stateRefusal({ ns: 'kv/a' }, true)).toBeNull();
  });
});

describe('schedule summaries (spec 07 §4.4)', () => {
  it('validate / explain', () => {
    expect(previewText({ valid: false, error: "invalid item 'mon-fry' in the day-of-week field" })).toBe(
      "INVALID: invalid item 'mon-fry' in the day-of-week field",
    );
    expect(previewText({ valid: true, reboot: true })).toMatch(/^valid: .*once.*start/);
    expect(
      previewText({
        valid: true,
        description: 'every 7 minutes',
        fires: ['2026-12-02T00:07:00+00:00'],
        never_fires: false,
        lint: [{ level: 'warning' }],
      }),
    ).toBe('valid: every 7 minutes; 1 lint warning(s), 0 note(s); first fire 2026-12-02T00:07:00+00:00');
    expect(previewText({ valid: true, description: 'x', fires: [], never_fires: true, lint: [] })).toContain(
      'never fires',
    );
  });

  it('pressure and duplicates', () => {
    expect(
      pressureText({
        total_fires: 30,
        jobs: 2,
        hours: 24,
        busiest_minute: { minute: 5, jobs: 2 },
        empty_minutes: [1, 2],
      }),
    ).toBe('30 fire(s) from 2 job(s) in the next 24h; busiest minute :05 (2 job(s)), 2 minute(s) empty');
    expect(duplicatesText({ jobs: 3, groups: [] })).toBe('0 duplicate group(s) across 3 scheduled job(s)');
    expect(duplicatesText({ jobs: 3, groups: [{ count: 2, expression: '0 * * * *' }] })).toBe(
      "1 duplicate group(s) across 3 scheduled job(s); biggest: 2 job(s) sharing '0 * * * *'",
    );
  });

  const check = (field: string, value: number, label: string, allowed: string, matched: boolean) => ({
    field,
    value,
    label,
    allowed,
    matched,
  });

  it('why: NO names the failing field in words', () => {
    const cron = parseCron('0 9 * * 1,5');
    const text = whyText(
      {
        job: 'report',
        enabled: true,
        at_in_zone: '2026-12-01T09:00:00+00:00',
        reboot: false,
        matches: false,
        checks: [
          check('minute', 0, '00', '0', true),
          check('hour', 9, '09', '9', true),
          check('day-of-week', 2, 'tue', '1,5', false),
        ],
        notes: [],
      },
      cron,
    );
    expect(text).toMatch(/^NO/);
    expect(text).toContain(': minute, hour matched');
    expect(text).toContain('day-of-week Tuesday is not in Monday and Friday');
  });

  it('why: YES with a DST note, a disabled job, an @reboot job', () => {
    const base = {
      job: 'n',
      enabled: true,
      at_in_zone: 'x',
      reboot: false,
      matches: true,
      checks: [],
      notes: [{ code: 'dst-repeated', message: 'the 01:30 fire repeats' }],
    };
    const yes = whyText(base, null);
    expect(yes).toMatch(/^YES/);
    expect(yes).toContain('; BUT the 01:30 fire repeats');
    expect(yes).toContain('cron_list_runs');
    expect(whyText({ ...base, enabled: false }, null)).toContain('disabled');
    expect(whyText({ ...base, reboot: true }, null)).toContain('@reboot');
  });

  it('why: a naive `at` is a wall time in the job zone, an offset or Z makes it absolute', () => {
    const ny = resolveFrame({ timezone: 'America/New_York' });
    const utc = resolveFrame({ utc: true });
    expect(instantOf('2026-07-01T09:00:00', ny)).toBe(Date.parse('2026-07-01T13:00:00Z'));
    expect(instantOf('2026-07-01T09:00:00Z', ny)).toBe(Date.parse('2026-07-01T09:00:00Z'));
    expect(instantOf('2026-07-01T09:00:00+02:00', ny)).toBe(Date.parse('2026-07-01T07:00:00Z'));
    expect(instantOf('2026-07-01T09:00:00', utc)).toBe(Date.parse('2026-07-01T09:00:00Z'));
    // The repeated 01:30 of the fall-back night means its first occurrence (EDT).
    expect(instantOf('2026-11-01T01:30:00', ny)).toBe(Date.parse('2026-11-01T05:30:00Z'));
    expect(instantOf('not a time', ny)).toBeNull();
  });
});

describe('why under a DST policy', () => {
  it('names the neighbouring fires the policy keeps', async () => {
    const { why } = await import('../../src/api/why.ts');
    const frame = resolveFrame({ timezone: 'America/New_York' });
    const cron = parseCron('30 1 * * *');
    const entry = {
      name: 'n',
      enabled: true,
      reboot: false,
      cron,
      frame,
      dst: { repeated: 'last', skipped: 'shift' },
    } as const;
    // Just after the first 01:30 (EDT) of the fall-back night: under `last` the next fire is 01:30 EST.
    const body = why(entry, Date.parse('2026-11-01T05:31:00Z'), []);
    expect(body.next_fire).toBe('2026-11-01T01:30:00-05:00');
    const plain = why(
      { ...entry, dst: { repeated: 'first', skipped: 'shift' } },
      Date.parse('2026-11-01T05:31:00Z'),
      [],
    );
    expect(plain.next_fire).toBe('2026-11-02T01:30:00-05:00');
  });
});
