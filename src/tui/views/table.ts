// The lookups the app needs from the registry's list of descriptors: a surface's view, a board key's action,
// the panels, the palette entries, the help rows and the poll work, each in the list's order. Built once from
// the list, so nothing depends on which module was imported first; a folder, surface kind or key claimed
// twice is an error here rather than a key that silently does one of two things.
import type { Command } from '../../dashboard/commands.ts';
import type { Controller } from '../app/controller.ts';
import type { Surface } from '../app/state.ts';
import type { BoardKey, HelpRow, PanelSpec, View, ViewCtx, ViewDescriptor, ViewTable } from './types.ts';

/** How the help sheet shows a key name. */
const SHOWN: Readonly<Record<string, string>> = {
  ' ': 'space',
  up: '↑',
  down: '↓',
  pageup: 'PgUp',
  pagedown: 'PgDn',
  home: 'Home',
  end: 'End',
  enter: 'Enter',
};
const shown = (name: string): string => SHOWN[name] ?? name;

function claim<T>(map: Map<string, T>, name: string, value: T, what: string): void {
  if (map.has(name)) throw new Error(`${what} '${name}' is claimed twice`);
  map.set(name, value);
}

export function viewTable(descriptors: readonly ViewDescriptor[]): ViewTable {
  const folders = new Map<string, ViewDescriptor>();
  const views = new Map<string, View<Surface>>();
  const keys = new Map<string, BoardKey>();
  const panels = new Map<string, PanelSpec>();
  const panelKeys = new Map<string, PanelSpec>();
  for (const d of descriptors) {
    claim(folders, d.folder, d, 'view folder');
    for (const v of d.surfaces ?? []) claim(views, v.kind, v as unknown as View<Surface>, 'surface kind');
    for (const k of d.keys ?? []) for (const name of k.keys) claim(keys, name, k, 'board key');
    if (d.panel) {
      claim(panels, d.panel.kind, d.panel, 'panel');
      claim(panelKeys, d.panel.key, d.panel, 'panel key');
    }
  }
  // The help sheet is this key map as it is: every board key with its own text, then each view's keys inside
  // its surfaces (issue 33: nothing the terminal does not take, nothing described as another UI does it).
  const help: HelpRow[] = descriptors.flatMap((d) => [
    ...(d.keys ?? []).map((k): HelpRow => [k.keys.map(shown).join(' / '), k.what]),
    ...(d.help ?? []),
  ]);
  return {
    descriptors,
    kinds: [...views.keys()],
    viewOf(s) {
      const v = views.get(s.kind);
      if (!v) throw new Error(`no view for surface '${s.kind}'`);
      return v;
    },
    boardKey: (name) => keys.get(name),
    panel: (kind) => panels.get(kind),
    panelByKey: (name) => panelKeys.get(name),
    paletteCommands: (ctx: ViewCtx): Command[] => descriptors.flatMap((d) => d.palette?.(ctx) ?? []),
    helpRows: () => help,
    afterPoll(ctl: Controller) {
      for (const d of descriptors) d.afterPoll?.(ctl);
    },
  };
}
