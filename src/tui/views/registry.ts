// Every view folder's descriptor, once, in the order the dashboard lists them: the help sheet's rows, the
// palette's entries of equal rank and the work after each poll follow this list, and nothing registers itself
// when imported. A new view = a folder under views/ exporting one descriptor, plus one line here.
import { boardDescriptor } from './board/board.ts';
import { bootDescriptor } from './boot/boot.ts';
import { bulkDescriptor } from './bulk/bulk.ts';
import { clusterDescriptor } from './cluster/cluster.ts';
import { dagsDescriptor } from './dags/list.ts';
import { drawerDescriptor } from './drawer/drawer.ts';
import { fleetDescriptor } from './fleet/fleet.ts';
import { heatDescriptor } from './heat/heat.ts';
import { helpDescriptor } from './help/help.ts';
import { incidentDescriptor } from './incident/timeline.ts';
import { multiTailDescriptor } from './multitail/multitail.ts';
import { nodeDescriptor } from './node/node.ts';
import { paletteDescriptor } from './palette/palette.ts';
import { pressureDescriptor } from './pressure/pressure.ts';
import { radarDescriptor } from './radar/radar.ts';
import { sandboxDescriptor } from './sandbox/sandbox.ts';
import { settingsDescriptor } from './settings/settings.ts';
import { stateDescriptor } from './state/state.ts';
import { viewTable } from './table.ts';
import { tokenDescriptor } from './token/token.ts';
import type { ViewDescriptor } from './types.ts';
import { wallboardDescriptor } from './wallboard/wallboard.ts';
import { weekDescriptor } from './week/week.ts';

export const DESCRIPTORS: readonly ViewDescriptor[] = [
  // the screens under everything
  boardDescriptor,
  bootDescriptor,
  wallboardDescriptor,
  // the core surfaces
  paletteDescriptor,
  tokenDescriptor,
  settingsDescriptor,
  helpDescriptor,
  drawerDescriptor,
  bulkDescriptor,
  // tui-ops
  dagsDescriptor,
  incidentDescriptor,
  multiTailDescriptor,
  stateDescriptor,
  // the other panels (spec 08 §4.12)
  clusterDescriptor,
  fleetDescriptor,
  nodeDescriptor,
  heatDescriptor,
  radarDescriptor,
  pressureDescriptor,
  weekDescriptor,
  sandboxDescriptor,
];

/** The lookups the app, the key map, the help sheet and the palette read. */
export const VIEWS = viewTable(DESCRIPTORS);

/** Every surface kind there is (tests check each is drawn, e.g. in ASCII mode). */
export const VIEW_KINDS: readonly string[] = VIEWS.kinds;
