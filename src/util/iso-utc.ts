// ISO-8601 instants with an explicit offset, Python isoformat style (microseconds only when non-zero):
// the one rendering of the web API's timestamps and of the reports' `started_at` (spec 06 §2.4).

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `localMs` is the wall-clock reading as if it were UTC; `offsetMs` is that moment's offset. */
export function isoWithOffset(localMs: number, offsetMs: number): string {
  const d = new Date(localMs);
  const ms = d.getUTCMilliseconds();
  const frac = ms === 0 ? '' : `.${pad(ms, 3)}000`;
  const off = Math.round(offsetMs / 60_000);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${frac}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** `2026-07-05T09:00:01.123000+00:00` */
export function isoUtc(ms: number): string {
  return isoWithOffset(ms, 0);
}
