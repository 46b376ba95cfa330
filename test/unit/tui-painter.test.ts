// The painter (spec 08 §6.6): changed rows only, absolutely positioned, inside synchronized-output brackets;
// a full repaint clears first; frames closer than the cap coalesce into the newest one.
import { describe, expect, it } from 'vitest';
import { Painter } from '../../src/tui/app/painter.ts';

describe('Painter', () => {
  it('first frame clears and sends every row; later frames only the rows that changed', () => {
    const out: string[] = [];
    const p = new Painter(
      (t) => out.push(t),
      () => 0,
      0,
    );
    p.paint(['a', 'b', 'c']);
    expect(out[0]).toBe('\u001b[?2026h\u001b[2J\u001b[1;1Ha\u001b[2;1Hb\u001b[3;1Hc\u001b[?2026l');
    p.paint(['a', 'B', 'c']);
    expect(out[1]).toBe('\u001b[?2026h\u001b[2;1HB\u001b[?2026l');
    p.paint(['a', 'B', 'c']);
    expect(out).toHaveLength(2);
    p.paint(['a']);
    expect(out[2]).toBe(
      '\u001b[?2026h\u001b[2;1H\u001b[0m\u001b[2K\u001b[3;1H\u001b[0m\u001b[2K\u001b[?2026l',
    );
    p.invalidate();
    p.paint(['a']);
    expect(out[3]).toBe('\u001b[?2026h\u001b[2J\u001b[1;1Ha\u001b[?2026l');
  });

  it('frames inside the 33 ms slot wait, and only the newest is painted', async () => {
    const out: string[] = [];
    let now = 0;
    const p = new Painter(
      (t) => out.push(t),
      () => now,
      33,
    );
    p.paint(['1']);
    now = 5;
    p.paint(['2']);
    p.paint(['3']);
    expect(out).toHaveLength(1);
    expect(p.screen()).toEqual(['3']);
    now = 40;
    await new Promise((r) => setTimeout(r, 45));
    expect(out).toHaveLength(2);
    expect(out[1]).toBe('\u001b[?2026h\u001b[1;1H3\u001b[?2026l');
    p.stop();
  });
});
