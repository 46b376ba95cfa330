// Writes frames to the terminal (spec 08 §6.6): only rows that differ from the previous frame are sent, each
// positioned absolutely, the whole frame inside synchronized-output brackets, at most ~30 frames a second.
// Ink's own output path re-tokenises every styled character of every row on each frame (tens of ms for a
// full-colour 120x40 screen), so Ink keeps keys, React and the lifecycle, and this paints.

const BEGIN = '\u001b[?2026h';
const END = '\u001b[?2026l';
const MIN_FRAME_MS = 33;

export class Painter {
  private prev: string[] = [];
  private full = true;
  private pending: string[] | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastAt = Number.NEGATIVE_INFINITY;
  /** bytes written so far (tests, the bench) */
  bytes = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly now: () => number = () => performance.now(),
    private readonly minFrameMs = MIN_FRAME_MS,
  ) {}

  /** The rows on screen now. */
  screen(): readonly string[] {
    return this.pending ?? this.prev;
  }

  /** The next frame clears the screen and sends every row (resize, resume, theme, wallboard). */
  invalidate(): void {
    this.full = true;
  }

  /** Paints now, or at the end of the current frame slot; a newer frame replaces a waiting one. */
  paint(rows: string[]): void {
    const wait = this.lastAt + this.minFrameMs - this.now();
    if (wait <= 0 && this.timer === null) {
      this.flush(rows);
      return;
    }
    this.pending = rows;
    if (this.timer === null)
      this.timer = setTimeout(
        () => {
          this.timer = null;
          const next = this.pending;
          this.pending = null;
          if (next) this.flush(next);
        },
        Math.max(0, wait),
      );
  }

  private flush(rows: string[]): void {
    this.lastAt = this.now();
    let out = '';
    if (this.full) {
      out += '\u001b[2J';
      this.prev = [];
      this.full = false;
    }
    for (let i = 0; i < rows.length; i++) {
      if (this.prev[i] !== rows[i]) out += `\u001b[${i + 1};1H${rows[i]}`;
    }
    for (let i = rows.length; i < this.prev.length; i++) out += `\u001b[${i + 1};1H\u001b[0m\u001b[2K`;
    this.prev = rows;
    if (out === '') return;
    const frame = BEGIN + out + END;
    this.bytes += frame.length;
    this.write(frame);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
