// ISO-8601 instants typed by a person (`cronstable next --after`, `/schedule/why?at=`): one
// meaning for every place that accepts one.

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;

/**
 * An ISO-8601 date or date-time -> epoch ms; no offset means UTC. Null when malformed or when a
 * field is out of range (month 13, 24:00, Feb 30, offset +25:00).
 */
export function parseIsoInstant(text: string): number | null {
  const m = ISO.exec(text.trim());
  if (m === null) return null;
  const [y, mo, d, h = 0, mi = 0, s = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) =>
    v === undefined ? undefined : Number(v),
  ) as number[];
  if (mo! < 1 || mo! > 12 || d! < 1 || h > 23 || mi > 59 || s > 59) return null;
  const ms = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  const utc = Date.UTC(y!, mo! - 1, d!, h, mi, s, ms);
  if (new Date(utc).getUTCDate() !== d) return null; // e.g. 2026-02-30
  let offsetMin = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  return utc - offsetMin * 60_000;
}
