// The 512-name advertisement cap of a gossip `/peer` body (spec 10 §4.6): sorted before the cut, so
// every node keeps the same lowest names; `/cluster` reports the full count past the cap, else 0.
import { describe, expect, it } from 'vitest';
import type { Election } from '../../src/cluster/election.ts';
import { advertisedNames, candidatesOver, MAX_ADVERTISED_NAMES } from '../../src/cluster/gossip/views.ts';

const names = (n: number) => Array.from({ length: n }, (_, i) => `node-${String(i).padStart(4, '0')}`);

describe('gossip advertisement cap', () => {
  it('keeps every name up to the cap and reports nothing cut', () => {
    const fit = names(MAX_ADVERTISED_NAMES).reverse();
    expect(advertisedNames(fit)).toEqual({ names: [...fit].sort(), over: 0 });
  });

  it('keeps the lowest 512 names whatever the input order, and counts them all', () => {
    const all = names(600);
    const shuffled = [...all.slice(300), ...all.slice(0, 300)].reverse();
    const cut = advertisedNames(shuffled);
    expect(cut.names).toEqual(all.slice(0, 512));
    expect(cut.over).toBe(600);
  });

  it('candidates_truncated is the longer list past the cap, not folded into anything else', () => {
    const e = (agreeing: number, eligible: number) =>
      ({ agreeingNames: names(agreeing), eligible: names(eligible) }) as unknown as Election;
    expect(candidatesOver(e(3, 2))).toBe(0);
    expect(candidatesOver(e(700, 520))).toBe(700);
    expect(candidatesOver(e(100, 513))).toBe(513);
  });
});
