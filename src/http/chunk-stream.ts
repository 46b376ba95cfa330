// A byte stream over a synchronous iterator of chunks, which our node:http writer sends without
// going through the stream at all. A web ReadableStream costs a read promise and a result object
// per chunk; for a big body (the calendar feed: 40 chunks of 32 KiB and more a request) that is
// garbage a late collector (Bun's) keeps resident for a while. It is still a real ReadableStream,
// so Hono, the platform's Response, tests and any other adapter read it the usual way; only a
// writer that takes the iterator before anyone read the stream skips the per-chunk objects.
import type { ServerResponse } from 'node:http';
import { bodyWritten } from './collect-after.ts';
import { releaseWhenWritten } from './lent-chunks.ts';

export class ChunkStream extends ReadableStream<Uint8Array> {
  readonly #chunks: Iterator<Uint8Array>;
  #taken = false;

  constructor(chunks: Iterator<Uint8Array>) {
    // High-water mark 0: nothing is produced before a reader asks, so a writer that takes the
    // iterator finds it untouched.
    super(
      {
        pull(controller) {
          const next = chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
        cancel() {
          chunks.return?.(undefined);
        },
      },
      { highWaterMark: 0 },
    );
    this.#chunks = chunks;
  }

  /**
   * The chunks themselves for a writer, or null when the stream was read (or taken) already. The
   * stream is locked from then on, so nobody reads the same chunks a second time.
   */
  static take(stream: ChunkStream): Iterator<Uint8Array> | null {
    if (stream.locked || stream.#taken) return null;
    stream.#taken = true;
    stream.getReader();
    return stream.#chunks;
  }
}

/**
 * Writes `chunks` to `writable` with backpressure and ends it; a lent chunk goes back to its
 * producer once written. A closed socket stops the iterator (its `return`), a throwing iterator
 * destroys the response; the promise settles either way, rejecting with the iterator's error.
 */
export function pipeChunks(chunks: Iterator<Uint8Array>, writable: ServerResponse): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    let sent = 0;
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      bodyWritten(sent);
      writable.off('close', stop);
      writable.off('error', stop);
      writable.off('drain', flow);
      if (error === undefined) resolve();
      else reject(error);
    };
    function stop(): void {
      if (settled) return;
      try {
        chunks.return?.(undefined);
      } catch {
        // The client is gone; what the producer does while winding down does not matter.
      }
      settle();
    }
    function flow(): void {
      try {
        for (;;) {
          if (writable.destroyed) {
            stop();
            return;
          }
          const next = chunks.next();
          if (next.done) {
            writable.end();
            settle();
            return;
          }
          sent += next.value.byteLength;
          if (!writable.write(next.value, releaseWhenWritten(next.value))) {
            writable.once('drain', flow);
            return;
          }
        }
      } catch (e) {
        settle(e ?? new Error('the body failed'));
        writable.destroy(e instanceof Error ? e : undefined);
      }
    }
    writable.on('close', stop);
    writable.on('error', stop);
    flow();
  });
}
