import { describe, expect, it } from 'vitest';
import { type ApiSlot, slotTitle, slotTone, stripCells } from '../../src/dashboard/slots.ts';
import { SLOT_FATES } from '../../src/util/slot-outcomes.ts';

const slot = (over: Partial<ApiSlot>): ApiSlot => ({
  scheduled_at: '2026-03-08T02:00:00.000Z',
  outcome: 'ran',
  node: 'node-a',
  run_id: 'r1',
  reason: null,
  others: [],
  ...over,
});

describe('slot strip helpers', () => {
  it('gives every fate the server can send a tone, and the alarming ones the lost tone', () => {
    for (const f of SLOT_FATES) expect(slotTone(f)).toMatch(/^(ok|fail|late|skip|other|run|dst|lost)$/);
    expect(slotTone('ran')).toBe('ok');
    expect(slotTone('failed')).toBe('fail');
    expect(slotTone('caught-up')).toBe('late');
    expect(slotTone('skipped-overlap')).toBe('skip');
    expect(slotTone('claimed-elsewhere')).toBe('other');
    expect(slotTone('dst-repeated')).toBe('dst');
    for (const f of ['unaccounted', 'missed', 'missed-overload', 'no-quorum'])
      expect(slotTone(f)).toBe('lost');
  });

  it('puts instant, outcome, node, reason and the other nodes into the hover text', () => {
    expect(
      slotTitle(
        slot({
          outcome: 'caught-up',
          reason: 'exit 0',
          others: [{ node: 'node-b', outcome: 'claimed-elsewhere', reason: null }],
        }),
      ),
    ).toBe('2026-03-08T02:00:00Z caught-up · on node-a · exit 0 · node-b: claimed-elsewhere');
    expect(slotTitle(slot({ outcome: 'unaccounted', node: null, run_id: null }))).toBe(
      '2026-03-08T02:00:00Z unaccounted',
    );
  });

  it('keeps the newest cells', () => {
    const many = Array.from({ length: 5 }, (_, i) => slot({ scheduled_at: String(i) }));
    expect(stripCells(many, 3).map((s) => s.scheduled_at)).toEqual(['2', '3', '4']);
    expect(stripCells(many, 10)).toHaveLength(5);
  });
});
