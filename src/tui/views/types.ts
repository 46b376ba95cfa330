// What a view is: a surface kind, how it paints (a drawer spliced on the right, or a centred panel) and how it
// takes keys. Each view lives in its own folder and is listed once in registry.ts.
import type { Controller } from '../app/controller.ts';
import type { Key } from '../app/keys.ts';
import type { Surface, TuiState } from '../app/state.ts';
import type { Glyphs } from '../text/glyphs.ts';
import type { Theme } from '../text/theme.ts';

export interface RenderCtx {
  s: TuiState;
  theme: Theme;
  g: Glyphs;
  ctl: Controller;
}

export interface KeyCtx {
  ctl: Controller;
  s: TuiState;
}

/** A centred panel: rows of content at a fixed inner width, painted inside a box over the board. */
export interface PanelPaint {
  placement: 'panel';
  title: string;
  /** total width including the borders */
  width: number;
  /** finished inner rows (already styled, exactly width - 4 cells) */
  body: string[];
  hint?: string;
}

/** A drawer: finished rows of the pane, at the given width, top to bottom. */
export interface DrawerPaint {
  placement: 'drawer';
  rows: string[];
}

export interface View<S extends Surface = Surface> {
  kind: string;
  paint(surface: S, ctx: RenderCtx): PanelPaint | DrawerPaint;
  /** handles a key; false = not taken (falls through to nothing: only the top surface gets keys) */
  key(surface: S, key: Key, ctx: KeyCtx): boolean;
  /** a text input has focus: printable keys type, `Esc` blurs before it closes */
  focused?(surface: S): boolean;
  /** `Esc` with focus: blur instead of closing */
  blur?(surface: S, ctx: KeyCtx): void;
}
