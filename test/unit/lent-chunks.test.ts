// Body chunks lent from a pool (issue 34): a buffer is filled again only after the writer has
// released the chunk it was lent as, once; a chunk nobody releases is never reused.
import { describe, expect, it } from 'vitest';
import { BufferPool, lend, releaseWhenWritten } from '../../src/http/lent-chunks.ts';

describe('lent chunks', () => {
  it('reuses a buffer only after its chunk is released', () => {
    const pool = new BufferPool(16, 2);
    const a = pool.take();
    const chunkA = pool.lend(a, 5);
    expect(chunkA.length).toBe(5);
    expect(chunkA.buffer).toBe(a.buffer);
    // Not released yet: the next take is another buffer.
    const b = pool.take();
    expect(b).not.toBe(a);
    expect(pool.allocated).toBe(2);
    const release = releaseWhenWritten(chunkA);
    expect(release).toBeTypeOf('function');
    release!();
    expect(pool.take()).toBe(a);
    expect(pool.allocated).toBe(2);
  });

  it('hands a release out once, and none for a chunk that was not lent', () => {
    const chunk = lend(new Uint8Array(4), () => {});
    expect(releaseWhenWritten(chunk)).toBeTypeOf('function');
    expect(releaseWhenWritten(chunk)).toBeUndefined();
    expect(releaseWhenWritten(new Uint8Array(4))).toBeUndefined();
    expect(releaseWhenWritten('text')).toBeUndefined();
  });

  it('keeps at most `keep` idle buffers', () => {
    const pool = new BufferPool(8, 1);
    const bufs = [pool.take(), pool.take(), pool.take()];
    const chunks = bufs.map((b) => pool.lend(b, 8));
    for (const c of chunks) releaseWhenWritten(c)!();
    expect(pool.take()).toBe(bufs[0]);
    const fresh = pool.take();
    expect(bufs).not.toContain(fresh);
    expect(pool.allocated).toBe(4);
  });
});
