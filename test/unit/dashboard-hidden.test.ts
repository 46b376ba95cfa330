// The hidden-tab refresh period (spec 10 §5.2): max(chosen, 30 s) while hidden, the chosen one while shown,
// paused stays paused either way.
import { describe, expect, it } from 'vitest';
import { HIDDEN_POLL_MS, pollPeriodMs } from '../../src/dashboard/hidden.ts';
import { REFRESH_CHOICES } from '../../src/dashboard/settings.ts';

describe('pollPeriodMs', () => {
  it('a shown tab polls at the chosen period', () => {
    expect(pollPeriodMs('1', false)).toBe(1000);
    expect(pollPeriodMs('3', false)).toBe(3000);
    expect(pollPeriodMs('10', false)).toBe(10_000);
  });

  it('a hidden tab polls at most every 30 s, for every choice', () => {
    expect(HIDDEN_POLL_MS).toBe(30_000);
    for (const c of REFRESH_CHOICES) if (c !== 'paused') expect(pollPeriodMs(c, true)).toBe(30_000);
  });

  it('a paused refresh stays paused, hidden or not', () => {
    expect(pollPeriodMs('paused', false)).toBeNull();
    expect(pollPeriodMs('paused', true)).toBeNull();
  });
});
