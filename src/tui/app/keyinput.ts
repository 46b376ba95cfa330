// The stream Ink reads keys from: the terminal's bytes with bracketed pastes taken out (they go to the paste
// handler instead), in arrival order. Everything else passes through untouched to Ink's key parser.
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { type InputSegment, PasteSplitter } from './paste.ts';

export class KeyInput extends Readable {
  readonly isTTY = true;
  private readonly splitter = new PasteSplitter();
  private readonly queue: InputSegment[] = [];
  private waiting = false;

  constructor(
    private readonly tty: NodeJS.ReadStream,
    private readonly onPaste: (text: string) => void,
  ) {
    super({ read() {} });
    const decoder = new StringDecoder('utf8');
    tty.on('data', (chunk: Buffer | string) => {
      this.queue.push(...this.splitter.push(typeof chunk === 'string' ? chunk : decoder.write(chunk)));
      this.drain();
    });
  }

  /**
   * Typed bytes go to Ink now (it parses them on the next tick); a paste waits for an immediate, after Ink has
   * dispatched the keys before it (`/` then a paste types into the filter), and the keys after it wait for it.
   */
  private drain(): void {
    while (this.queue.length > 0 && !this.waiting) {
      const seg = this.queue[0]!;
      if (!seg.paste) {
        this.queue.shift();
        this.push(seg.text);
        continue;
      }
      this.waiting = true;
      setImmediate(() => {
        this.waiting = false;
        this.queue.shift();
        this.onPaste(seg.text);
        this.drain();
      });
    }
  }

  setRawMode(on: boolean): this {
    this.tty.setRawMode(on);
    return this;
  }

  ref(): this {
    this.tty.ref();
    return this;
  }

  unref(): this {
    this.tty.unref();
    return this;
  }
}
