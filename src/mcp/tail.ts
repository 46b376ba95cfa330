// Log tails as the MCP tools return them (spec 07 §7 Do better): one sanitiser and one cursor for the
// job tail and the DAG task tail. A tail leaves the daemon for a model provider, so every line loses its
// terminator, its ANSI escapes and its C0 controls (tab kept); redaction is the caller's (the job tail
// applies the archive rules, the DAG live log is already redacted). The cursor is `<run>.<seq>`: `seq`
// counts lines ever published by that run instance, so it survives the 1000-line ring wrapping, and
// `run` names the instance, so a cursor from an earlier run is never reinterpreted against a new one.
export interface TailLine {
  stream: 'stdout' | 'stderr';
  line: string;
}

/** One instance's live buffer: the ring (oldest first), the lines ever published, and its tag. */
export interface TailSource {
  lines: readonly TailLine[];
  /** Lines ever published by this instance (>= lines.length; the difference was evicted). */
  published: number;
  /** Names the instance (e.g. its start time): a cursor carrying another tag restarts at its first line. */
  run: string;
}

export interface TailPage {
  lines: TailLine[];
  /** Pass back as `cursor` to get the lines after this page. */
  cursor: string;
  /** Lines exist that this page left out: older ones (no cursor) or newer ones past `tail` (cursor). */
  truncated: boolean;
  /** Lines after the cursor that the ring evicted before this call could return them. */
  skipped?: number;
}

// CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), and the two-byte escapes (ESC + one character).
const ANSI =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]/g;
// C0 controls except tab, and DEL.
const CONTROLS = /[\x00-\x08\x0a-\x1f\x7f]/g;

/** One buffered line made safe to hand to a model: no terminator, no escapes, no controls but tab. */
export function sanitizeLine(line: string): string {
  return line
    .replace(/\r?\n$/, '')
    .replace(ANSI, '')
    .replace(CONTROLS, '');
}

/** The cursor of an instance's position `seq`. */
export const tailCursor = (run: string, seq: number): string => `${run}.${seq}`;

/** The cursor an empty source answers with (nothing runs, nothing retained). */
export const EMPTY_CURSOR = tailCursor('none', 0);

/** `<run>.<seq>` back into its parts, or null when it is not a cursor this module wrote. */
export function parseTailCursor(cursor: string): { run: string; seq: number } | null {
  const m = /^([A-Za-z0-9_-]+)\.(\d{1,15})$/.exec(cursor);
  return m ? { run: m[1]!, seq: Number(m[2]) } : null;
}

export const BAD_CURSOR = 'cursor must be a value returned by a previous call of this tool';

/**
 * A page of `source`. Without a cursor: the newest `tail` lines. With one: up to `tail` lines after it
 * (a cursor of another instance starts at this instance's first line; one past the end is clamped).
 * Returns null for a cursor this module did not write.
 */
export function tailPage(
  source: TailSource | null,
  tail: number,
  cursor: string | undefined,
): TailPage | null {
  const parsed = cursor === undefined ? null : parseTailCursor(cursor);
  if (cursor !== undefined && parsed === null) return null;
  if (source === null) return { lines: [], cursor: parsed ? cursor! : EMPTY_CURSOR, truncated: false };
  const { lines, published, run } = source;
  const firstSeq = published - lines.length;
  const take = (fromSeq: number, count: number) =>
    lines.slice(fromSeq - firstSeq, fromSeq - firstSeq + count).map((l) => ({
      stream: l.stream,
      line: sanitizeLine(l.line),
    }));
  if (parsed === null) {
    const from = Math.max(firstSeq, published - tail);
    const page = take(from, tail);
    return { lines: page, cursor: tailCursor(run, published), truncated: from > 0 };
  }
  let from = parsed.run === run ? Math.min(parsed.seq, published) : 0;
  const skipped = Math.max(0, firstSeq - from);
  from += skipped;
  const page = take(from, tail);
  const next = from + page.length;
  const out: TailPage = { lines: page, cursor: tailCursor(run, next), truncated: next < published };
  if (skipped > 0) out.skipped = skipped;
  return out;
}
