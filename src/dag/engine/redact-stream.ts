// Secret redaction of a task's output as it leaves the daemon over the HTTP API (the logs route the
// dashboard follows). Jobs redact what they archive (spec 02 §13); a task has no archive, and its
// live log is the only way its output reaches a browser, so that is where the same rules apply:
// the pattern rules plus the literal values of the task's run-scoped `secrets`. The replayed tail
// is redacted as one batch (so a private-key block whose header was evicted is still caught); the
// lines that follow carry the "inside a private-key block" state from line to line. Pure.
import { REDACTED, redactLine, redactLines } from '../../exec/redact.ts';
import type { OutputLine } from '../../exec/types.ts';

const PEM_MARKER = /-----(BEGIN|END) [A-Z0-9 ]*PRIVATE KEY-----/g;

const terminator = (line: string) => /\r?\n$/.exec(line)?.[0] ?? '';

/** Whether a private-key block is still open after these lines. */
function openAfter(lines: readonly string[], open: boolean): boolean {
  let inBlock = open;
  for (const line of lines) for (const m of line.matchAll(PEM_MARKER)) inBlock = m[1] === 'BEGIN';
  return inBlock;
}

export interface LiveRedactor {
  replay(lines: readonly OutputLine[]): OutputLine[];
  next(line: OutputLine): OutputLine;
}

export function liveRedactor(secrets: readonly string[]): LiveRedactor {
  const values = [...secrets];
  let inBlock = false;
  return {
    replay(lines) {
      const raw = lines.map((l) => l.line);
      const out = redactLines(raw, values).lines;
      inBlock = openAfter(raw, false);
      return lines.map((l, i) => ({ stream: l.stream, line: out[i] ?? '' }));
    },
    next(l) {
      const markers = [...l.line.matchAll(PEM_MARKER)];
      if (inBlock || markers.length > 0) {
        inBlock = openAfter([l.line], inBlock);
        return { stream: l.stream, line: REDACTED + terminator(l.line) };
      }
      return { stream: l.stream, line: redactLine(l.line, values) };
    },
  };
}
