// Every surface the dashboard can stack over the board, by kind. A new view = a folder under views/ plus one
// line here (and, if it has a palette entry, an addPaletteSource call in its folder).
import type { Surface } from '../app/state.ts';
import { drawerView } from './drawer/drawer.ts';
import { helpView } from './help/help.ts';
import { paletteView } from './palette/palette.ts';
import { settingsView } from './settings/settings.ts';
import { timelineView } from './timeline/timeline.ts';
import { tokenView } from './token/token.ts';
import type { View } from './types.ts';

const VIEWS: readonly View<never>[] = [
  paletteView,
  tokenView,
  settingsView,
  helpView,
  timelineView,
  drawerView,
] as View<never>[];

const BY_KIND = new Map<string, View<Surface>>(VIEWS.map((v) => [v.kind, v as unknown as View<Surface>]));

export function viewOf(s: Surface): View<Surface> {
  const v = BY_KIND.get(s.kind);
  if (!v) throw new Error(`no view for surface '${s.kind}'`);
  return v;
}
