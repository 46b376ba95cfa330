// The log view's line buffer: lines in fixed-size chunks, so appending replaces only the last chunk and every
// other chunk keeps its identity (the view skips re-rendering those). Trimming drops whole chunks from the
// front once the buffer holds a full chunk more than the limit. Pure and immutable.

export const CHUNK_SIZE = 64;

export interface Chunk<T> {
  /** stable for the chunk's life: the sequence number of its first line */
  readonly id: number;
  readonly lines: readonly T[];
}

export interface LogBuffer<T> {
  readonly chunks: readonly Chunk<T>[];
  /** lines in all chunks */
  readonly total: number;
  /** lines ever appended (ids of new chunks) */
  readonly seq: number;
}

export const EMPTY_LOG: LogBuffer<never> = { chunks: [], total: 0, seq: 0 };

/**
 * Appends `add`, keeping at least `keep` lines (and fewer than `keep + CHUNK_SIZE`). Chunks before the last one
 * are reused as they are.
 */
export function appendLines<T>(
  buf: LogBuffer<T>,
  add: readonly T[],
  keep: number,
  size = CHUNK_SIZE,
): LogBuffer<T> {
  if (add.length === 0) return buf;
  const chunks = buf.chunks.slice();
  let seq = buf.seq;
  let i = 0;
  const last = chunks[chunks.length - 1];
  if (last !== undefined && last.lines.length < size) {
    const room = size - last.lines.length;
    chunks[chunks.length - 1] = { id: last.id, lines: last.lines.concat(add.slice(0, room)) };
    i = Math.min(room, add.length);
    seq += i;
  }
  while (i < add.length) {
    const lines = add.slice(i, i + size);
    chunks.push({ id: seq, lines });
    seq += lines.length;
    i += lines.length;
  }
  let total = buf.total + add.length;
  while (chunks.length > 1 && total - chunks[0]!.lines.length >= keep) {
    total -= chunks[0]!.lines.length;
    chunks.shift();
  }
  return { chunks, total, seq };
}

/** Every line, oldest first. */
export function chunkLines<T>(buf: LogBuffer<T>): T[] {
  const out: T[] = [];
  for (const c of buf.chunks) for (const l of c.lines) out.push(l);
  return out;
}
