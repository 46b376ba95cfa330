// Every surface the dashboard can stack over the board, by kind. A new view = a folder under views/ plus one
// line here (and, if it has a palette entry, an addPaletteSource call in its folder).
import type { Surface } from '../app/state.ts';
import { bulkView } from './bulk/bulk.ts';
import { clusterView } from './cluster/cluster.ts';
import { dagDrawerView } from './dags/drawer.ts';
import { dagsView } from './dags/list.ts';
import { drawerView } from './drawer/drawer.ts';
import { fleetView } from './fleet/fleet.ts';
import { heatView } from './heat/heat.ts';
import { helpView } from './help/help.ts';
import { mitigateView } from './incident/mitigate.ts';
import { timelineView } from './incident/timeline.ts';
import { multiTailView } from './multitail/multitail.ts';
import { nodeView } from './node/node.ts';
import { paletteView } from './palette/palette.ts';
import { pressureView } from './pressure/pressure.ts';
import { radarView } from './radar/radar.ts';
import { sandboxView } from './sandbox/sandbox.ts';
import { settingsView } from './settings/settings.ts';
import { stateView } from './state/state.ts';
import { tokenView } from './token/token.ts';
import type { View } from './types.ts';
import { weekView } from './week/week.ts';

const VIEWS: readonly View<never>[] = [
  paletteView,
  tokenView,
  settingsView,
  helpView,
  drawerView,
  bulkView,
  // tui-ops
  dagsView,
  dagDrawerView,
  timelineView,
  mitigateView,
  multiTailView,
  stateView,
  // the other panels (spec 08 §4.12)
  clusterView,
  fleetView,
  nodeView,
  heatView,
  radarView,
  pressureView,
  weekView,
  sandboxView,
] as View<never>[];

/** Every surface kind there is (tests check each is drawn, e.g. in ASCII mode). */
export const VIEW_KINDS: readonly string[] = VIEWS.map((v) => v.kind);

const BY_KIND = new Map<string, View<Surface>>(VIEWS.map((v) => [v.kind, v as unknown as View<Surface>]));

export function viewOf(s: Surface): View<Surface> {
  const v = BY_KIND.get(s.kind);
  if (!v) throw new Error(`no view for surface '${s.kind}'`);
  return v;
}
