// One captured stream's line pipeline: split, decode, publish, re-emit prefixed, retain (spec 02 §4.2).
// Pure apart from the callbacks it is given.
import { decodeLine, LineSplitter, type SplitEvent } from './lines.ts';
import { formatStreamPrefix } from './prefix.ts';
import { Retention } from './retain.ts';
import type { StreamName } from './types.ts';

export interface CaptureSettings {
  jobName: string;
  stream: StreamName;
  streamPrefix: string;
  saveLimit: number;
  maxLineLength: number;
}

export interface CaptureOutputs {
  /** Live ring + subscribers. */
  publish(stream: StreamName, line: string): void;
  /** The daemon's stdio of the same stream. */
  emit(text: string): void;
  warn(message: string): void;
}

export class StreamCapture {
  private readonly splitter: LineSplitter;
  private readonly retention: Retention;
  private readonly prefix: string;
  private finished = false;

  constructor(
    private readonly settings: CaptureSettings,
    private readonly outputs: CaptureOutputs,
  ) {
    this.splitter = new LineSplitter(settings.maxLineLength);
    this.retention = new Retention(settings.saveLimit);
    this.prefix = formatStreamPrefix(settings.streamPrefix, settings.jobName, settings.stream);
  }

  get stream(): StreamName {
    return this.settings.stream;
  }

  feed(chunk: Uint8Array): void {
    if (this.finished) return;
    this.handle(this.splitter.push(chunk));
  }

  /** End of stream (or the drain gave up): flushes the final unterminated line. Idempotent. */
  finish(): void {
    if (this.finished) return;
    this.handle(this.splitter.end());
    this.finished = true;
  }

  get text(): string {
    return this.retention.text();
  }

  get discarded(): number {
    return this.retention.discarded;
  }

  private handle(events: SplitEvent[]): void {
    for (const event of events) {
      if (event.kind === 'overlong') {
        this.outputs.warn(`job ${this.settings.jobName}: ignored a very long line`);
        continue;
      }
      const line = decodeLine(event.bytes);
      this.outputs.publish(this.settings.stream, line);
      this.outputs.emit(this.prefix + line);
      this.retention.add(line);
    }
  }
}
