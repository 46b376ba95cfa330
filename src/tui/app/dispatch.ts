// Key dispatch (spec 08 §5): Ctrl-C first, then the palette, Esc, a focused input, the wallboard, the top
// surface, the board's key table. Only the top surface takes keys.
import { filterKey } from '../views/board/board.ts';
import { skipBoot } from '../views/boot/boot.ts';
import { clearMarks } from '../views/bulk/bulk.ts';
import type { HelpRow, RenderCtx } from '../views/types.ts';
import { wallboardKey, zenActive } from '../views/wallboard/wallboard.ts';
import type { Controller } from './controller.ts';
import type { Key } from './keys.ts';
import type { Surface } from './state.ts';

/** The keys dispatch takes before any surface or the board does, as the help sheet lists them. */
export const GLOBAL_KEYS: readonly HelpRow[] = [
  ['Ctrl-K / Ctrl-P', 'Command palette'],
  ['Esc', 'Close the panel or drawer on top'],
  ['Ctrl-C', 'Quit'],
  ['Ctrl-Z', 'Suspend (fg resumes)'],
];

export interface DispatchHooks {
  /** Ctrl-Z: hand the terminal back and stop (spec 08 §1.4) */
  suspend: () => void;
}

export function dispatchKey(ctl: Controller, key: Key, hooks: DispatchHooks, render: RenderCtx): void {
  const s = ctl.state;
  if (key.ctrl && key.name === 'c') {
    ctl.quit(0);
    return;
  }
  if (key.ctrl && key.name === 'z') {
    hooks.suspend();
    return;
  }
  if (s.boot) {
    skipBoot(ctl);
    return;
  }
  const wasZen = zenActive(render);
  ctl.store.set({ lastKeyAt: ctl.deps.mono() });
  if (wasZen) return;
  const views = render.views;
  const ctx = { ctl, s, views };
  const top: Surface | null = ctl.top();
  if (top?.kind === 'palette') {
    if (key.name === 'escape') ctl.close('palette');
    else views.viewOf(top).key(top, key, ctx);
    return;
  }
  if (key.ctrl && (key.name === 'k' || key.name === 'p')) {
    if (!s.wallboard) ctl.push({ kind: 'palette', query: '', sel: 0 } as Surface);
    return;
  }
  if (key.name === 'escape') {
    if (top) {
      const v = views.viewOf(top);
      if (v.focused?.(top) && v.blur && top.kind !== 'token') v.blur(top, ctx);
      else ctl.close(top.kind);
    } else if (s.filterFocused) ctl.store.set({ filterFocused: false });
    else if (s.wallboard) ctl.store.set({ wallboard: false });
    else if (s.marked.size > 0) clearMarks(ctl);
    return;
  }
  if (top === null && s.filterFocused && !s.wallboard) {
    filterKey(key, ctx);
    return;
  }
  if (s.wallboard) {
    wallboardKey(key, ctx);
    return;
  }
  if (top) {
    views.viewOf(top).key(top, key, ctx);
    return;
  }
  // The board: its own keys and the views' (`i`, `m`, `?`, `w`, the panels), one table; Ctrl chords are none.
  if (!key.ctrl) views.boardKey(key.name)?.run(ctx);
}
