// Byte-based line splitting with a per-line byte limit (spec 02 §4.2, §4.5). Pure: no I/O.

/** One outcome of splitting: a complete line (bytes, including its `\n` when it had one) or a dropped over-long line. */
export type SplitEvent = { kind: 'line'; bytes: Buffer } | { kind: 'overlong' };

const NEWLINE = 0x0a;

/**
 * Splits a byte stream on `\n`. A line whose content (without the `\n`) exceeds `maxLineLength`
 * bytes is dropped whole, through its terminating `\n`, and reported once as `overlong`. At most
 * `maxLineLength` bytes of an unfinished line are ever held; while skipping an over-long line
 * nothing is held.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private skipping = false;

  constructor(readonly maxLineLength: number) {}

  /** Bytes of the unfinished line currently held (never more than maxLineLength). */
  get buffered(): number {
    return this.pendingLength;
  }

  push(chunk: Uint8Array): SplitEvent[] {
    const events: SplitEvent[] = [];
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    while (start < buf.length) {
      const nl = buf.indexOf(NEWLINE, start);
      if (this.skipping) {
        if (nl < 0) return events;
        this.skipping = false;
        start = nl + 1;
        continue;
      }
      if (nl < 0) {
        const rest = buf.length - start;
        if (this.pendingLength + rest > this.maxLineLength) {
          this.clear();
          this.skipping = true;
          events.push({ kind: 'overlong' });
        } else {
          // Copy: the held part must not pin (or alias) the caller's whole chunk.
          this.pending.push(Buffer.from(buf.subarray(start)));
          this.pendingLength += rest;
        }
        return events;
      }
      if (this.pendingLength + (nl - start) > this.maxLineLength) {
        events.push({ kind: 'overlong' });
      } else {
        const piece = buf.subarray(start, nl + 1);
        const bytes =
          this.pending.length === 0 ? Buffer.from(piece) : Buffer.concat([...this.pending, piece]);
        events.push({ kind: 'line', bytes });
      }
      this.clear();
      start = nl + 1;
    }
    return events;
  }

  /** End of stream: the final unterminated chunk is a line too (unless it was being skipped). */
  end(): SplitEvent[] {
    const events: SplitEvent[] = [];
    if (!this.skipping && this.pendingLength > 0) {
      events.push({ kind: 'line', bytes: Buffer.concat(this.pending) });
    }
    this.clear();
    this.skipping = false;
    return events;
  }

  private clear(): void {
    this.pending = [];
    this.pendingLength = 0;
  }
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** UTF-8 decode with replacement (invalid bytes become U+FFFD); a BOM is kept as text. */
export function decodeLine(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
