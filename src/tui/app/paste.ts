// Bracketed paste (spec 08 §5, Q25): the terminal wraps pasted text in `CSI 200~ … CSI 201~` once the
// dashboard asks for it (`CSI ?2004h`). The splitter cuts a stream of input chunks into typed keys and pasted
// text; a paste types into the focused input as one piece and is ignored anywhere else, so a clipboard holding
// `rq` cannot run a job and quit.

import { flatten } from '../text/sanitize.ts';
import { filterKey } from '../views/board/board.ts';
import { VIEWS } from '../views/registry.ts';
import type { Controller } from './controller.ts';
import type { Key } from './keys.ts';

export const PASTE_START = '\u001b[200~';
export const PASTE_END = '\u001b[201~';

export interface InputSegment {
  /** true: pasted text; false: typed bytes for the key decoder */
  paste: boolean;
  text: string;
}

/** Length of the longest suffix of `s` that is a proper prefix of `marker`. */
function partialMarker(s: string, marker: string): number {
  for (let n = Math.min(s.length, marker.length - 1); n > 0; n--)
    if (marker.startsWith(s.slice(-n))) return n;
  return 0;
}

export class PasteSplitter {
  private inPaste = false;
  private pasted = '';
  private carry = '';

  push(chunk: string): InputSegment[] {
    let s = this.carry + chunk;
    this.carry = '';
    const out: InputSegment[] = [];
    while (s.length > 0) {
      const marker = this.inPaste ? PASTE_END : PASTE_START;
      const at = s.indexOf(marker);
      if (at >= 0) {
        const before = s.slice(0, at);
        if (this.inPaste) {
          out.push({ paste: true, text: this.pasted + before });
          this.pasted = '';
        } else if (before !== '') out.push({ paste: false, text: before });
        this.inPaste = !this.inPaste;
        s = s.slice(at + marker.length);
        continue;
      }
      // A marker cut in two by the read: hold its first half back. Outside a paste only from `ESC [ 2` on,
      // so a lone Esc (or `ESC [` of an arrow) reaches the key decoder at once.
      let keep = partialMarker(s, marker);
      if (!this.inPaste && keep < 3) keep = 0;
      const body = s.slice(0, s.length - keep);
      this.carry = s.slice(s.length - keep);
      if (this.inPaste) this.pasted += body;
      else if (body !== '') out.push({ paste: false, text: body });
      break;
    }
    return out;
  }
}

/** Types a paste into the focused input (palette, token, filter, log search, sandbox, add, backfill). */
export function dispatchPaste(ctl: Controller, text: string): void {
  const s = ctl.state;
  if (s.boot) return;
  ctl.store.set({ lastKeyAt: ctl.deps.mono() });
  if (s.wallboard) return;
  const clean = flatten(text).trim();
  if (clean === '') return;
  const key: Key = { name: 'paste', ctrl: false, text: clean };
  const ctx = { ctl, s, views: VIEWS };
  const top = ctl.top();
  if (top) {
    const view = VIEWS.viewOf(top);
    if (view.focused?.(top)) view.key(top, key, ctx);
  } else if (s.filterFocused) filterKey(key, ctx);
}
