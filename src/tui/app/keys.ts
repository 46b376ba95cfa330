// Key decoding (spec 08 §5): Ink's keypress parse folded into one small shape the dispatcher matches on.
// Modified arrows collapse to the plain key; Alt chords arrive as the bare character.
import type { Key as InkKey } from 'ink';

export interface Key {
  /** 'up' 'down' 'left' 'right' 'pageup' 'pagedown' 'home' 'end' 'enter' 'escape' 'tab' 'backtab'
   * 'backspace', a printable character, or the letter of a Ctrl chord */
  name: string;
  ctrl: boolean;
  /** a printable character (or pasted text) the key types into a focused input */
  text: string;
}

export function fromInk(input: string, key: InkKey): Key[] {
  const k = (name: string, ctrl = false, text = ''): Key[] => [{ name, ctrl, text }];
  if (key.upArrow) return k('up');
  if (key.downArrow) return k('down');
  if (key.leftArrow) return k('left');
  if (key.rightArrow) return k('right');
  if (key.pageUp) return k('pageup');
  if (key.pageDown) return k('pagedown');
  if (key.home) return k('home');
  if (key.end) return k('end');
  if (key.return) return k('enter');
  if (key.escape) return k('escape');
  if (key.tab) return k(key.shift ? 'backtab' : 'tab');
  if (key.backspace || key.delete) return k('backspace');
  if (key.ctrl) {
    // Ctrl-H / Ctrl-I / Ctrl-J / Ctrl-M are backspace, tab, enter.
    if (input === 'h') return k('backspace');
    if (input === 'i') return k('tab');
    if (input === 'j' || input === 'm') return k('enter');
    return k(input, true);
  }
  if (input === '') return [];
  // A burst (a paste, or keys that queued up while a frame was painted): one key per character, each printable
  // one also typing itself. Control bytes in the burst keep their meaning (`Ctrl-K` then `open` is the palette).
  return [...input].flatMap((c): Key[] => {
    const code = c.charCodeAt(0);
    if (c === '\r' || c === '\n') return k('enter');
    if (c === '\t') return k('tab');
    if (c === '\u007f' || c === '\b') return k('backspace');
    if (code >= 1 && code <= 26) return k(String.fromCharCode(code + 96), true);
    if (c < ' ') return [];
    return [{ name: c, ctrl: false, text: c }];
  });
}

export const key = (name: string, ctrl = false): Key => ({
  name,
  ctrl,
  text: name.length === 1 && !ctrl ? name : '',
});
