import { describe, expect, it } from 'vitest';
import { parseCron, resolveFrame, UTC_FRAME } from '../../src/schedule/index.ts';
import { type LedgerRow, ledgerRow, slotFates } from '../../src/scheduler/slots.ts';
import { fateOf } from '../../src/util/slot-outcomes.ts';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const min = (n: number) => new Date(T0 + n * 60_000).toISOString();
let nextId = 1;
const row = (over: Partial<LedgerRow>): LedgerRow => ({
  id: nextId++,
  node: 'n1',
  scheduledAt: null,
  outcome: 'success',
  trigger: 'schedule',
  attempt: 0,
  runId: null,
  failReason: null,
  ...over,
});
const everyMinute = parseCron('* * * * *');

describe('slotFates', () => {
  it('lists every slot of [from, to) and marks the ones without a record unaccounted', () => {
    const r = slotFates({
      cron: everyMinute,
      frame: UTC_FRAME,
      everyNode: false,
      fromMs: T0,
      toMs: T0 + 5 * 60_000,
      limit: 100,
      rows: [
        row({ scheduledAt: min(0), outcome: 'success', runId: 'r0' }),
        row({ scheduledAt: min(1), outcome: 'failure', runId: 'r1', failReason: 'exit 3' }),
        row({ scheduledAt: min(2), outcome: 'skipped:overlap', node: 'n2' }),
        row({ scheduledAt: min(5), outcome: 'success' }), // outside (to is exclusive)
      ],
    });
    expect(r.slots.map((s) => [s.scheduled_at, s.outcome, s.node])).toEqual([
      [min(0), 'ran', 'n1'],
      [min(1), 'failed', 'n1'],
      [min(2), 'skipped-overlap', 'n2'],
      [min(3), 'unaccounted', null],
      [min(4), 'unaccounted', null],
    ]);
    expect(r.slots[0]!.run_id).toBe('r0');
    expect(r.slots[1]!.reason).toBe('exit 3');
    expect(r.counts).toEqual({ ran: 1, failed: 1, 'skipped-overlap': 1, unaccounted: 2 });
    expect(r.truncated).toBe(0);
  });

  it('picks the run over the other nodes’ claimed-elsewhere rows and keeps those as others', () => {
    const rows = [
      row({ scheduledAt: min(0), outcome: 'claimed-elsewhere', node: 'n2', failReason: 'claimed by n1' }),
      row({ scheduledAt: min(0), outcome: 'success', node: 'n1', runId: 'run-a' }),
      row({ scheduledAt: min(0), outcome: 'claimed-elsewhere', node: 'n3', failReason: 'claimed by n1' }),
      // Forbid on the claim winner beats the losers' claimed-elsewhere.
      row({ scheduledAt: min(1), outcome: 'claimed-elsewhere', node: 'n3' }),
      row({ scheduledAt: min(1), outcome: 'skipped:overlap', node: 'n1' }),
      // The last retry attempt is the slot's outcome.
      row({ scheduledAt: min(2), outcome: 'failure', runId: 'x1', attempt: 0 }),
      row({ scheduledAt: min(2), outcome: 'success', runId: 'x2', attempt: 1, trigger: 'retry' }),
    ];
    const r = slotFates({
      cron: everyMinute,
      frame: UTC_FRAME,
      everyNode: false,
      fromMs: T0,
      toMs: T0 + 3 * 60_000,
      limit: 100,
      rows,
    });
    expect(r.slots[0]).toMatchObject({ outcome: 'ran', node: 'n1', run_id: 'run-a' });
    expect(r.slots[0]!.others.map((o) => [o.node, o.outcome])).toEqual([
      ['n3', 'claimed-elsewhere'],
      ['n2', 'claimed-elsewhere'],
    ]);
    expect(r.slots[1]).toMatchObject({ outcome: 'skipped-overlap', node: 'n1' });
    expect(r.slots[2]).toMatchObject({ outcome: 'ran', run_id: 'x2' });
  });

  it('a slot only recorded as claimed-elsewhere still counts as accounted for', () => {
    const r = slotFates({
      cron: everyMinute,
      frame: UTC_FRAME,
      everyNode: false,
      fromMs: T0,
      toMs: T0 + 60_000,
      limit: 100,
      rows: [row({ scheduledAt: min(0), outcome: 'claimed-elsewhere', node: 'n2' })],
    });
    expect(r.slots[0]).toMatchObject({ outcome: 'claimed-elsewhere', node: 'n2' });
    expect(r.counts.unaccounted).toBeUndefined();
  });

  it('gives EveryNode jobs one slot per node and instant', () => {
    const r = slotFates({
      cron: everyMinute,
      frame: UTC_FRAME,
      everyNode: true,
      nodes: ['n1', 'n2', 'n3'],
      fromMs: T0,
      toMs: T0 + 2 * 60_000,
      limit: 100,
      rows: [
        row({ scheduledAt: min(0), node: 'n1', runId: 'a' }),
        row({ scheduledAt: min(0), node: 'n2', outcome: 'failure', runId: 'b' }),
        row({ scheduledAt: min(1), node: 'n3', runId: 'c' }),
        row({ scheduledAt: min(1), node: 'n4', outcome: 'skipped:overlap' }), // a node not listed
      ],
    });
    expect(r.slots.map((s) => `${s.scheduled_at.slice(14, 16)} ${s.node} ${s.outcome}`)).toEqual([
      '00 n1 ran',
      '00 n2 failed',
      '00 n3 unaccounted',
      '00 n4 unaccounted',
      '01 n1 unaccounted',
      '01 n2 unaccounted',
      '01 n3 ran',
      '01 n4 skipped-overlap',
    ]);
    expect(r.slots.every((s) => s.others.length === 0)).toBe(true);
  });

  it('caps a second-level schedule at the limit, keeping the newest slots', () => {
    const r = slotFates({
      cron: parseCron('* * * * * * *'),
      frame: UTC_FRAME,
      everyNode: false,
      fromMs: T0,
      toMs: T0 + 3600_000,
      limit: 500,
      rows: [row({ scheduledAt: new Date(T0 + 3599_000).toISOString(), runId: 'last' })],
    });
    expect(r.slots).toHaveLength(500);
    expect(r.truncated).toBe(3100);
    expect(r.slots[0]!.scheduled_at).toBe(new Date(T0 + 3100_000).toISOString());
    expect(r.slots[499]).toMatchObject({ outcome: 'ran', run_id: 'last' });
    expect(r.counts).toEqual({ ran: 1, unaccounted: 499 });
  });

  it('expands a folded missed-overload record over every slot it covers', () => {
    const r = slotFates({
      cron: everyMinute,
      frame: UTC_FRAME,
      everyNode: false,
      fromMs: T0,
      toMs: T0 + 6 * 60_000,
      limit: 100,
      rows: [
        row({ scheduledAt: min(0), outcome: 'missed-overload', failReason: 'stall' }),
        row({ scheduledAt: min(1), outcome: 'missed-overload', missedCount: 4, missedUntil: min(4) }),
        row({ scheduledAt: min(3), outcome: 'success', runId: 'won' }),
      ],
    });
    expect(r.slots.map((s) => s.outcome)).toEqual([
      'missed-overload',
      'missed-overload',
      'missed-overload',
      'ran',
      'missed-overload',
      'unaccounted',
    ]);
  });

  it('follows the job’s time zone (a spring-forward night has no 02:30 slot)', () => {
    const from = Date.parse('2026-03-07T12:00:00Z');
    const r = slotFates({
      cron: parseCron('30 2 * * *'),
      frame: resolveFrame({ timezone: 'America/New_York' }),
      everyNode: false,
      fromMs: from,
      toMs: from + 3 * 86400_000,
      limit: 100,
      rows: [],
    });
    // 02:30 on 8 March does not exist; the engine's default shifts it to 03:30 EDT (07:30Z).
    expect(r.slots.map((s) => s.scheduled_at)).toEqual([
      '2026-03-08T07:30:00.000Z',
      '2026-03-09T06:30:00.000Z',
      '2026-03-10T06:30:00.000Z',
    ]);
  });

  it('does not call slots before the ledger’s history of the job unaccounted', () => {
    const r = slotFates({
      cron: everyMinute,
      frame: UTC_FRAME,
      everyNode: false,
      fromMs: T0,
      toMs: T0 + 5 * 60_000,
      limit: 100,
      historyStartMs: T0 + 3 * 60_000,
      rows: [row({ scheduledAt: min(3), runId: 'first' })],
    });
    expect(r.slots.map((s) => s.outcome)).toEqual(['ran', 'unaccounted']);
    expect(r.beforeHistory).toBe(3);
  });

  it('returns nothing for an empty window', () => {
    const r = slotFates({
      cron: everyMinute,
      frame: UTC_FRAME,
      everyNode: false,
      fromMs: T0,
      toMs: T0,
      limit: 10,
      rows: [],
    });
    expect(r.slots).toEqual([]);
  });
});

describe('fateOf / ledgerRow', () => {
  it('maps what the ledger records onto slot fates', () => {
    const f = (outcome: string, trigger: string | null = 'schedule', failReason: string | null = null) =>
      fateOf({ outcome, trigger, failReason });
    expect(f('success')).toBe('ran');
    expect(f('failure')).toBe('failed');
    expect(f('unknown')).toBe('failed');
    expect(f('cancelled')).toBe('cancelled');
    expect(f('success', 'catchup')).toBe('caught-up');
    expect(f('failure', 'catchup')).toBe('caught-up');
    expect(f('skipped:overlap')).toBe('skipped-overlap');
    expect(f('skipped:disabled')).toBe('disabled');
    expect(f('skipped:only-if-last-succeeded')).toBe('skipped-only-if-last-succeeded');
    expect(f('skipped:gate', 'schedule', 'not the leader')).toBe('skipped-gate');
    expect(f('skipped:gate', 'schedule', 'no quorum of peers')).toBe('no-quorum');
    expect(f('claimed-elsewhere')).toBe('claimed-elsewhere');
    expect(f('missed')).toBe('missed');
    expect(f('missed-overload')).toBe('missed-overload');
    for (const d of ['dst-shifted', 'dst-skipped', 'dst-repeated']) expect(f(d)).toBe(d);
  });

  it('reads a stored record body', () => {
    expect(
      ledgerRow({
        id: 7,
        writer: 'node-b#abc',
        data: { outcome: 'success', scheduled_at: min(0), run_id: 'r', trigger: 'schedule', attempt: 0 },
      }),
    ).toMatchObject({ id: 7, node: 'node-b', outcome: 'success', scheduledAt: min(0), runId: 'r' });
  });
});
