// What a captured stream keeps for reports and failsWhen: head + tail per saveLimit (spec 02 §4.4). Pure.
import { BoundedQueue } from './ring.ts';

export function discardMarker(discarded: number): string {
  return `   [.... ${discarded} lines discarded ...]\n`;
}

export class Retention {
  private readonly head: string[] = [];
  private readonly top: number;
  private readonly tail: BoundedQueue<string>;
  private discardedCount = 0;

  constructor(readonly saveLimit: number) {
    const limit = Math.max(0, Math.floor(saveLimit));
    this.top = Math.floor(limit / 2);
    this.tail = new BoundedQueue<string>(limit - this.top);
  }

  get discarded(): number {
    return this.discardedCount;
  }

  add(line: string): void {
    if (this.head.length < this.top) {
      this.head.push(line);
      return;
    }
    if (this.tail.push(line)) this.discardedCount += 1;
  }

  /** Head lines, the discard marker (when lines were dropped and the tail is non-empty), tail lines. */
  text(): string {
    const tail = this.tail.toArray();
    const marker = this.discardedCount > 0 && tail.length > 0 ? discardMarker(this.discardedCount) : '';
    return this.head.join('') + marker + tail.join('');
  }
}
