// Polling in a hidden tab (spec 10 §5.2): nobody is looking, so the refresh slows to at most one poll per 30 s
// (a paused refresh stays paused); the browser hook restores the chosen period when the tab shows again.
import type { RefreshChoice } from './settings.ts';

/** The slowest a hidden tab polls (ms): at least this long between polls. */
export const HIDDEN_POLL_MS = 30_000;

/** The refresh period in ms for the chosen refresh and the tab's visibility; null when refreshing is paused. */
export function pollPeriodMs(choice: RefreshChoice, hidden: boolean): number | null {
  if (choice === 'paused') return null;
  const chosen = Number(choice) * 1000;
  return hidden ? Math.max(chosen, HIDDEN_POLL_MS) : chosen;
}
