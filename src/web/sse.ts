// Server-sent log streams (spec 06 §5.7): replay the source run's buffered lines, then follow the
// live lines of a running instance until it is recorded; `: ping` every 15 s; unsubscribe on disconnect.
import type { LineEvent, StreamSource } from '../api/logsource.ts';

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

const PING_MS = 15_000;
/** A client this far behind (queued events) is dropped rather than buffered without bound. */
const MAX_QUEUED = 20_000;

const enc = new TextEncoder();

/** A line event's payload: the text without its trailing newline. */
function lineData(l: LineEvent): { stream: string; line: string } {
  const t = l.line;
  const cut = t.endsWith('\r\n') ? 2 : t.endsWith('\n') ? 1 : 0;
  return { stream: l.stream, line: cut ? t.slice(0, -cut) : t };
}

export function sseEvent(event: string, data: unknown): Uint8Array {
  return enc.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export function sseResponse(source: StreamSource, pingMs = PING_MS): Response {
  let cleanup: (() => void) | null = null;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const finish = (data: unknown) => {
        if (closed) return;
        closed = true;
        cleanup?.();
        try {
          controller.enqueue(sseEvent('end', data));
          controller.close();
        } catch {
          // The client is already gone.
        }
      };
      const push = (chunk: Uint8Array) => {
        if (closed) return;
        if ((controller.desiredSize ?? 0) < -MAX_QUEUED) {
          closed = true;
          cleanup?.();
          controller.error(new Error('log stream client too slow'));
          return;
        }
        try {
          controller.enqueue(chunk);
        } catch {
          closed = true;
          cleanup?.();
        }
      };
      if (source.empty) {
        finish({ reason: 'no-output' });
        return;
      }
      const follow = source.follow;
      if (!follow) {
        for (const l of source.replay) push(sseEvent('line', lineData(l)));
        finish({});
        return;
      }
      const ping = setInterval(() => push(enc.encode(': ping\n\n')), pingMs);
      ping.unref?.();
      let unfollow: (() => void) | null = null;
      cleanup = () => {
        clearInterval(ping);
        unfollow?.();
        unfollow = null;
      };
      // Subscribe, then replay, in one synchronous step: live lines can only arrive after this
      // block, so none is lost or duplicated between the buffer and the live feed.
      unfollow = follow(
        (l) => push(sseEvent('line', lineData(l))),
        () => finish({}),
      );
      for (const l of source.replay) push(sseEvent('line', lineData(l)));
    },
    cancel() {
      cleanup?.();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
