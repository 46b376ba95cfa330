// Incremental Server-Sent Events parser for fetch-stream log tails (EventSource cannot send an auth header).

export interface SseEvent {
  event: string;
  data: string;
}

export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];

  /** Feeds decoded text; returns the events completed by it. Comments (`: ping`) are dropped. */
  push(chunk: string): SseEvent[] {
    this.buffer += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const nl = this.buffer.search(/\r\n|\r|\n/);
      if (nl < 0) break;
      // A lone CR at the very end may be the first half of CRLF: wait for more text.
      if (this.buffer[nl] === '\r' && nl === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, nl);
      const width = this.buffer.startsWith('\r\n', nl) ? 2 : 1;
      this.buffer = this.buffer.slice(nl + width);
      this.line(line, out);
    }
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0 || this.event !== '') {
        out.push({ event: this.event || 'message', data: this.data.join('\n') });
      }
      this.event = '';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
  }
}

/** A log line of the `/jobs/{name}/logs` stream. */
export interface LogLine {
  stream: 'stdout' | 'stderr';
  text: string;
}

/** Decodes the `data` of a `line` event, or null when it is not one. */
export function decodeLogLine(data: string): LogLine | null {
  try {
    const v = JSON.parse(data) as { stream?: unknown; line?: unknown };
    if (typeof v.line !== 'string') return null;
    return { stream: v.stream === 'stderr' ? 'stderr' : 'stdout', text: v.line };
  } catch {
    return null;
  }
}
