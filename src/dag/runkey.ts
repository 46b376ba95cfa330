// Run keys (spec 04 §4.2): deterministic from the logical instant for scheduled, catch-up and backfill
// runs, so every creator of the same instant converges on one document; random for manual runs.

/** `YYYY-MM-DDTHH:MM:SS+00:00` (whole seconds, `+00:00` never `Z`): the form keys and logicalDate use. */
export function logicalDateOf(ms: number): string {
  const d = new Date(Math.floor(ms / 1000) * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  const y = d.getUTCFullYear();
  return (
    `${String(y).padStart(4, '0')}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}` +
    `T${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}+00:00`
  );
}

/** Every run of characters outside `[0-9A-Za-z_.:-]` becomes a single `_`. */
export function sanitizeRunKey(text: string): string {
  return text.replace(/[^0-9A-Za-z_.:-]+/g, '_');
}

/** The key of the run for a logical instant, e.g. `2026-07-05T09:03:00_00:00`. */
export function runKeyAt(ms: number): string {
  return sanitizeRunKey(logicalDateOf(ms));
}

/** `manual-` + 12 lowercase hex; the caller draws the hex (this module has no randomness). */
export function manualRunKey(hex12: string): string {
  if (!/^[0-9a-f]{12}$/.test(hex12)) throw new Error(`manual run key needs 12 lowercase hex, got '${hex12}'`);
  return `manual-${hex12}`;
}
