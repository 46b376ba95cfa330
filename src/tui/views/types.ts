// What a view is: a surface kind, how it paints (a drawer spliced on the right, or a centred panel) and how it
// takes keys; and what a view folder declares to the rest of the dashboard (its descriptor: surfaces, board
// keys, palette entries, help rows, work after each poll). Each folder exports one descriptor, listed once in
// registry.ts; the app reads the registry's table (ViewTable) through the contexts below.
import type { Command } from '../../dashboard/commands.ts';
import type { Controller } from '../app/controller.ts';
import type { Key } from '../app/keys.ts';
import type { Surface, TuiState } from '../app/state.ts';
import type { Glyphs } from '../text/glyphs.ts';
import type { Theme } from '../text/theme.ts';

/** What keys, palette entries and panels act with: the controller and the registry's table. */
export interface ViewCtx {
  ctl: Controller;
  views: ViewTable;
}

export interface RenderCtx extends ViewCtx {
  s: TuiState;
  theme: Theme;
  g: Glyphs;
}

export interface KeyCtx extends ViewCtx {
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

/** A key the board takes (nothing open, no input focused); a Ctrl chord is never one. */
export interface BoardKey {
  /** key names as the decoder spells them (`j`, `down`, ` `) */
  keys: readonly string[];
  /** what it does, as the help sheet lists it (the sheet is generated from this key map) */
  what: string;
  run(ctx: KeyCtx): void;
}

/** A panel of spec 08 §4.12: toggled by its board key and a palette entry, switched to from another panel. */
export interface PanelSpec {
  kind: string;
  /** the board key that toggles it */
  key: string;
  /** the palette entry's title ("Toggle fleet view") and icon */
  title: string;
  icon: string;
  /** for the help sheet */
  what: string;
  /** a fresh surface, and what starts when it opens */
  create(ctl: Controller): Surface;
  opened?(ctl: Controller): void;
}

/** One row of the help sheet: keys as shown, and what they do. */
export type HelpRow = readonly [string, string];

/** What one folder under views/ declares; registry.ts lists every folder's descriptor once, in order. */
export interface ViewDescriptor {
  /** the folder under views/ that exports it */
  folder: string;
  /** the surfaces it stacks over the board */
  surfaces?: readonly View<never>[];
  keys?: readonly BoardKey[];
  /** help rows for keys it takes inside its own surfaces */
  help?: readonly HelpRow[];
  /** its palette entries, asked each time the palette lists them (so they read fresh state) */
  palette?(ctx: ViewCtx): Command[];
  /** work after every good poll (refresh what it shows while open, Q18) */
  afterPoll?(ctl: Controller): void;
  panel?: PanelSpec;
}

/** The registry's descriptors as lookups, every list in registry order. */
export interface ViewTable {
  readonly descriptors: readonly ViewDescriptor[];
  /** every surface kind */
  readonly kinds: readonly string[];
  viewOf(s: Surface): View<Surface>;
  boardKey(name: string): BoardKey | undefined;
  /** the panel of a surface kind, or the one a board key toggles */
  panel(kind: string): PanelSpec | undefined;
  panelByKey(name: string): PanelSpec | undefined;
  paletteCommands(ctx: ViewCtx): Command[];
  /** the help sheet's rows: every board key, then the keys views take in their surfaces, in registry order */
  helpRows(): readonly HelpRow[];
  afterPoll(ctl: Controller): void;
}
