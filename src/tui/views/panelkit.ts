// What the "other panels" (spec 08 §4.12) share: scrolling bodies with a position in the hint, patches that
// find the open surface by kind (a fetch answering late must not write into a surface the user moved on from),
// the toggle that opens, raises or closes a panel, a panel's descriptor (its key and palette entry), and live
// refresh driven by the store (each poll, or every N ms on the 1 s tick) that ends when the panel closes.
import { errorText } from '../../util/errors.ts';
import type { Controller } from '../app/controller.ts';
import type { Key } from '../app/keys.ts';
import type { Surface, TuiState } from '../app/state.ts';
import type { Glyphs } from '../text/glyphs.ts';
import type { Style } from '../text/theme.ts';
import { cellWidth, wrapCells } from '../text/width.ts';
import { command } from './command.ts';
import { bodyRow, innerWidth } from './panel.ts';
import type { KeyCtx, PanelPaint, PanelSpec, RenderCtx, View, ViewCtx, ViewDescriptor } from './types.ts';

export type Span = [string, Style?];
export type PanelRow = Span[];

export interface ScrollSurface extends Surface {
  scroll: number;
}

/** The open surface of `kind`, or undefined. */
export function openSurface<S extends Surface>(ctl: Controller, kind: string): S | undefined {
  return ctl.state.stack.find((x) => x.kind === kind) as S | undefined;
}

/** Patches the open surface of `kind`, whatever object it is now; nothing when it was closed meanwhile. */
export function patchKind<S extends Surface>(
  ctl: Controller,
  kind: string,
  patch: Partial<S> | ((s: S) => Partial<S>),
): void {
  if (!openSurface(ctl, kind)) return;
  ctl.store.set((st) => ({
    stack: st.stack.map((x) =>
      x.kind === kind ? { ...x, ...(typeof patch === 'function' ? patch(x as S) : patch) } : x,
    ),
  }));
}

/** Body rows a panel with a hint row can show on this screen (frame height minus borders and hint). */
export function bodyRoom(s: TuiState, fixed = 0): number {
  return Math.max(1, s.rows - 1 - 4 - fixed);
}

/** The largest scroll each panel kind showed at its last paint, so keys stop at the end. */
const maxScroll = new Map<string, number>();

export interface PanelBody {
  title: string;
  width: number;
  /** rows that stay on top (column heads) */
  head?: PanelRow[];
  rows: PanelRow[];
  hint: string;
}

/** Paints a scrolled panel: the fixed head, the window of rows at `scroll`, and `a-b/n` in the hint. */
export function paintPanel(surface: ScrollSurface, ctx: RenderCtx, p: PanelBody): PanelPaint {
  const inner = innerWidth(p.width, ctx.s.cols);
  const head = p.head ?? [];
  const room = bodyRoom(ctx.s, head.length);
  const max = Math.max(0, p.rows.length - room);
  maxScroll.set(surface.kind, max);
  const top = Math.min(Math.max(0, surface.scroll), max);
  const shown = p.rows.slice(top, top + room);
  const where = max > 0 ? ` · ${top + 1}-${top + shown.length}/${p.rows.length}` : '';
  return {
    placement: 'panel',
    title: p.title,
    width: p.width,
    body: [...head, ...shown].map((r) => bodyRow(ctx, inner, r)),
    hint: `${p.hint}${where}`,
  };
}

/** `j` `k` `↑` `↓` `PgUp` `PgDn` `Home` `End`: true when the key scrolled. */
export function scrollKey(surface: ScrollSurface, key: Key, ctl: Controller): boolean {
  const max = maxScroll.get(surface.kind) ?? Number.MAX_SAFE_INTEGER;
  const cur = Math.min(surface.scroll, max);
  const step: Record<string, number> = { j: 1, down: 1, k: -1, up: -1, pagedown: 10, pageup: -10 };
  let next: number;
  if (key.name in step && !key.ctrl) next = cur + step[key.name]!;
  else if (key.name === 'home') next = 0;
  else if (key.name === 'end') next = max;
  else return false;
  patchKind<ScrollSurface>(ctl, surface.kind, { scroll: Math.max(0, Math.min(max, next)) });
  return true;
}

/** Opens the panel (over anything else), raises it when open but covered, closes it when on top. */
export function togglePanel(ctx: ViewCtx, kind: string): void {
  const { ctl, views } = ctx;
  const spec = views.panel(kind);
  if (!spec) return;
  const top = ctl.top();
  if (top?.kind === kind) {
    ctl.close(kind);
    return;
  }
  const open = openSurface(ctl, kind);
  // Another of these panels on top: this one takes its place rather than stacking on it.
  if (kind !== 'sandbox' && top && views.panel(top.kind) && top.kind !== 'sandbox') ctl.close(top.kind);
  ctl.push(open ?? spec.create(ctl));
  if (!open) spec.opened?.(ctl);
}

/** A panel's descriptor: its surface, the board key and the palette entry that toggle it. */
export function panelDescriptor<S extends Surface>(
  folder: string,
  view: View<S>,
  spec: Omit<PanelSpec, 'kind'>,
  more: Pick<ViewDescriptor, 'afterPoll'> = {},
): ViewDescriptor {
  const kind = view.kind;
  return {
    folder,
    surfaces: [view as unknown as View<never>],
    panel: { ...spec, kind },
    keys: [{ keys: [spec.key], what: spec.what, run: (ctx) => togglePanel(ctx, kind) }],
    palette: (ctx) => [command(`panel:${kind}`, spec.title, spec.icon, () => togglePanel(ctx, kind))],
    ...more,
  };
}

/**
 * Keys every non-input panel shares: its own key closes it, another panel's key switches to that panel, and
 * the scroll keys scroll. Returns true when taken.
 */
export function commonPanelKey(surface: ScrollSurface, key: Key, ctx: KeyCtx): boolean {
  if (key.ctrl) return false;
  const panel = ctx.views.panelByKey(key.name);
  if (panel !== undefined) {
    togglePanel(ctx, panel.kind);
    return true;
  }
  return scrollKey(surface, key, ctx.ctl);
}

export interface LivePlan {
  /** every `everyMs` of monotonic time, checked on each store change (the 1 s tick at least) */
  everyMs?: number | ((ctl: Controller) => number);
  every?(ctl: Controller): void;
}

/**
 * Runs `plan` while the panel of `kind` is open; stops by itself once it is closed (or the program stops).
 * (Work after each poll is the descriptor's afterPoll instead.)
 */
export function keepFresh(ctl: Controller, kind: string, plan: LivePlan): void {
  let last = ctl.state.mono;
  const off = ctl.store.subscribe(() => {
    if (!openSurface(ctl, kind)) {
      off();
      return;
    }
    const s = ctl.state;
    const every = typeof plan.everyMs === 'function' ? plan.everyMs(ctl) : plan.everyMs;
    if (plan.every && every !== undefined && s.mono - last >= every) {
      last = s.mono;
      plan.every(ctl);
    }
  });
}

export interface PanelGlyphs {
  /** 0 (none) … 4 (most) */
  shade: readonly string[];
  /** a fire on a track */
  mark: string;
  rule: string;
  dot: string;
  ok: string;
  bad: string;
}

/** The panels' drawing glyphs; ASCII mode (spec 08 §6.1) maps the shades and marks too. */
export function panelGlyphs(g: Glyphs): PanelGlyphs {
  if (g.v === '|')
    return { shade: [' ', ':', '=', '*', '#'], mark: '@', rule: g.h, dot: g.dot, ok: '+', bad: 'x' };
  return { shade: [' ', '░', '▒', '▓', '█'], mark: '◆', rule: g.h, dot: g.dot, ok: '✓', bad: '✕' };
}

/**
 * Fetches into the open panel of `kind`: the answer's fields and `error: null`, or only `error` (the last good
 * answer stays on screen under a warning).
 */
export async function loadInto<S extends Surface & { error: string | null }>(
  ctl: Controller,
  kind: string,
  fetch: (client: Controller['deps']['client']) => Promise<Partial<S>>,
): Promise<void> {
  try {
    const patch = await fetch(ctl.deps.client);
    patchKind<S>(ctl, kind, { ...patch, error: null });
  } catch (e) {
    patchKind<S>(ctl, kind, { error: errorText(e) } as Partial<S>);
  }
}

/** Word-wraps plain text to `width` cells (a word longer than a row is cut by cells); continuation rows indent. */
export function wrapText(text: string, width: number, indent = ''): string[] {
  const rows: string[] = [];
  let row = '';
  for (const word of text.split(' ')) {
    const next = row === '' ? word : `${row} ${word}`;
    if (cellWidth(next) <= width || row === '') {
      row = next;
      while (cellWidth(row) > width) {
        const head = wrapCells(row, width)[0]!;
        rows.push(head);
        row = indent + row.slice(head.length);
      }
    } else {
      rows.push(row);
      row = indent + word;
    }
  }
  if (row !== '' || rows.length === 0) rows.push(row);
  return rows;
}
