// Body chunks lent by a producer that reuses its buffers. A big streamed body (the calendar feed:
// a megabyte or more a request) written into fresh buffers leaves that much garbage per request,
// and a runtime whose collector runs late (Bun) holds it all as resident memory until it sweeps.
// So the producer fills buffers from a pool, and hands each chunk out with a release that the
// writer calls once the socket has taken the bytes (the write's callback); only then is the buffer
// filled again. A consumer that never releases (a test reading the body, a platform Response)
// simply leaves the buffer to the collector, so a chunk handed out is never overwritten.

const releases = new WeakMap<Uint8Array, () => void>();

/** Marks `chunk` as lent: `release` runs once the writer is done with it. */
export function lend(chunk: Uint8Array, release: () => void): Uint8Array {
  releases.set(chunk, release);
  return chunk;
}

/** The writer's callback for a chunk it is about to write: releases it when lent, else undefined. */
export function releaseWhenWritten(chunk: unknown): (() => void) | undefined {
  if (!(chunk instanceof Uint8Array)) return undefined;
  const release = releases.get(chunk);
  if (release === undefined) return undefined;
  releases.delete(chunk);
  return release;
}

/** Same-sized buffers to fill and lend; at most `keep` idle ones are held between requests. */
export class BufferPool {
  private readonly idle: Buffer[] = [];
  /** Buffers allocated so far (a pool whose chunks come back allocates only a few). */
  allocated = 0;

  constructor(
    readonly size: number,
    private readonly keep: number,
  ) {}

  take(): Buffer {
    const buf = this.idle.pop();
    if (buf !== undefined) return buf;
    this.allocated++;
    return Buffer.allocUnsafe(this.size);
  }

  /** `bytes` of `buf` as a chunk that returns `buf` to the pool when the writer releases it. */
  lend(buf: Buffer, bytes: number): Uint8Array {
    return lend(buf.subarray(0, bytes), () => {
      if (this.idle.length < this.keep) this.idle.push(buf);
    });
  }
}
