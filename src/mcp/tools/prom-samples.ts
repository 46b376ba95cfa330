// Prometheus text exposition -> samples, for `cron_query_metrics` (spec 07 §4.3): comments and blank
// lines skipped; `labels` is the raw `{…}` text (or ""), `value` the raw string so NaN and +Inf survive.
// Pure.

export interface Sample {
  name: string;
  labels: string;
  value: string;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

/** One sample line, or null when the line is not one. */
export function parseSampleLine(line: string): Sample | null {
  const t = line.trim();
  if (t === '' || t.startsWith('#')) return null;
  const m = NAME.exec(t);
  if (!m) return null;
  const name = m[0];
  let i = name.length;
  let labels = '';
  if (t[i] === '{') {
    // Label values are quoted and may hold `}`, spaces and escaped quotes.
    let quoted = false;
    let j = i + 1;
    for (; j < t.length; j++) {
      const c = t[j];
      if (quoted) {
        if (c === '\\') j++;
        else if (c === '"') quoted = false;
      } else if (c === '"') quoted = true;
      else if (c === '}') break;
    }
    if (j >= t.length) return null;
    labels = t.slice(i, j + 1);
    i = j + 1;
  }
  const value = t.slice(i).trim().split(/\s+/)[0];
  return value ? { name, labels, value } : null;
}

/** The samples whose metric name contains `match` (case-insensitive; null = all), in exposition order. */
export function matchSamples(text: string, match: string | null): Sample[] {
  const needle = match === null ? null : match.toLowerCase();
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const s = parseSampleLine(line);
    if (s && (needle === null || s.name.toLowerCase().includes(needle))) out.push(s);
  }
  return out;
}
