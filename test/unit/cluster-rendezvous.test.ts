import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rendezvousOwner, rendezvousScore } from '../../src/cluster/rendezvous.ts';

const cronstable = ['cronstable-a', 'cronstable-b', 'cronstable-c'];
const meridian = 'abcdefghi'.split('').map((c) => `meridian-${c}`);

describe('rendezvous hashing (spec 05 §6.1)', () => {
  it('scores match the spec score checks', () => {
    expect(rendezvousScore('tick-leader-only', 'cronstable-a')).toBe(0xdb1521b1bb63b471n);
    expect(rendezvousScore('orders-ingest', 'meridian-a')).toBe(0xccdd62d77deb7e38n);
  });

  it.each([
    ['tick-leader-only', cronstable, 'cronstable-a', null],
    ['tick-prefer-leader', cronstable, 'cronstable-c', null],
    ['orders-ingest', meridian, 'meridian-d', 'meridian-f'],
    ['dag:orders-etl', meridian, 'meridian-g', 'meridian-f'],
    ['charge-subscriptions', meridian, 'meridian-f', 'meridian-a'],
    ['daily-reconcile', meridian, 'meridian-c', 'meridian-i'],
  ] as const)('%s: owner and owner after removing it', (job, members, owner, next) => {
    expect(rendezvousOwner(job, members)).toBe(owner);
    expect(rendezvousOwner(job, [...members].reverse())).toBe(owner);
    if (next !== null)
      expect(
        rendezvousOwner(
          job,
          members.filter((m) => m !== owner),
        ),
      ).toBe(next);
  });

  it('has no owner without members', () => {
    expect(rendezvousOwner('x', [])).toBeNull();
  });

  it('breaks a score tie by the higher name (duplicates score alike)', () => {
    expect(rendezvousOwner('j', ['n', 'n'])).toBe('n');
  });

  it('owner is a member, independent of order, and stable when a non-owner leaves', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }),
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 10 }),
        fc.nat(),
        (job, members, pick) => {
          const owner = rendezvousOwner(job, members);
          expect(owner).not.toBeNull();
          expect(members).toContain(owner);
          expect(rendezvousOwner(job, [...members].reverse())).toBe(owner);
          const others = members.filter((m) => m !== owner);
          const gone = others[pick % others.length] as string;
          expect(
            rendezvousOwner(
              job,
              members.filter((m) => m !== gone),
            ),
          ).toBe(owner);
        },
      ),
    );
  });
});
