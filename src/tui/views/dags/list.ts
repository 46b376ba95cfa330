// The DAGs panel (spec 08 §4.11): every configured DAG with its task count, latest run state and schedule.
// Opened from the palette; `Enter` opens the DAG drawer, `t` triggers, `r` reloads (and each poll while it shows).
import { type ApiDag, scheduleText } from '../../../dashboard/dag.ts';
import type { Controller } from '../../app/controller.ts';
import type { Surface } from '../../app/state.ts';
import { flatten } from '../../text/sanitize.ts';
import { fit } from '../../text/width.ts';
import { command } from '../command.ts';
import { bodyRow, innerWidth } from '../panel.ts';
import { clampSel, findSurface } from '../surface.ts';
import type { PanelPaint, View, ViewCtx, ViewDescriptor } from '../types.ts';
import { triggerDag } from './actions.ts';
import { dagDrawerView, openDagDrawer, refreshDagDrawer } from './drawer.ts';
import { dagStateRole } from './roles.ts';

export interface DagsSurface extends Surface {
  kind: 'dags';
  sel: number;
}

const WIDTH = 76;

export function toggleDags(ctl: Controller): void {
  if (findSurface(ctl, 'dags')) {
    ctl.close('dags');
    return;
  }
  ctl.push({ kind: 'dags', sel: 0 } as DagsSurface);
  void ctl.loadDags();
}

const dagList = (ctl: Controller): readonly ApiDag[] => ctl.state.data.dags ?? [];

export const dagsView: View<DagsSurface> = {
  kind: 'dags',
  paint(p, ctx): PanelPaint {
    const inner = innerWidth(WIDTH, ctx.s.cols);
    const dags = ctx.s.data.dags;
    const body: string[] = [];
    if (dags === null) body.push(bodyRow(ctx, inner, [['loading…', { fg: 'dim' }]]));
    else if (dags.length === 0) body.push(bodyRow(ctx, inner, [['no DAGs configured', { fg: 'dim' }]]));
    const sel = Math.min(p.sel, Math.max(0, (dags?.length ?? 0) - 1));
    (dags ?? []).forEach((d, i) => {
      const bg = i === sel ? 'sel' : 'bg';
      const state = d.latestRun?.state ?? '—';
      body.push(
        bodyRow(ctx, inner, [
          [fit(` ⧉ ${flatten(d.name)}`, 28), { fg: i === sel ? 'bright' : 'fg', bg, bold: i === sel }],
          [fit(`${d.tasks.length} tasks`, 12), { fg: 'dim', bg }],
          [fit(flatten(state), 11), { fg: dagStateRole(d.latestRun?.state), bg }],
          [flatten(scheduleText(d)), { fg: 'dim', bg }],
        ]),
      );
    });
    return {
      placement: 'panel',
      title: 'DAGs',
      width: WIDTH,
      body,
      hint: 'j/k move · enter open · t trigger · r reload · esc close',
    };
  },
  key(p, key, { ctl }) {
    const dags = dagList(ctl);
    const d = dags[Math.min(p.sel, dags.length - 1)];
    switch (key.name) {
      case 'j':
      case 'down':
        ctl.update(p, { sel: clampSel(p.sel, 1, dags.length) });
        return true;
      case 'k':
      case 'up':
        ctl.update(p, { sel: clampSel(p.sel, -1, dags.length) });
        return true;
      case 'enter':
        if (d) openDagDrawer(ctl, d.name);
        return true;
      case 't':
        if (d && ctl.state.data.access.control) void triggerDag(ctl, d.name).then(() => ctl.loadDags());
        return true;
      case 'r':
        ctl.toast('↻ reloading DAGs', 'info');
        void ctl.loadDags();
        return true;
    }
    return true;
  },
};

function palette({ ctl }: ViewCtx) {
  return [
    command('dags', 'Toggle DAGs panel', '⧉', () => toggleDags(ctl)),
    ...dagList(ctl).flatMap((d) => {
      const n = flatten(d.name);
      return [
        command(`dag:${d.name}`, `DAG: ${n}`, '⧉', () => openDagDrawer(ctl, d.name)),
        ...(ctl.state.data.access.control
          ? [command(`trigger:${d.name}`, `Trigger DAG: ${n}`, '▶', () => void triggerDag(ctl, d.name))]
          : []),
      ];
    }),
  ];
}

/** The DAGs panel and the DAG drawer it opens; each poll reloads the list while it shows (Q18). */
export const dagsDescriptor: ViewDescriptor = {
  folder: 'dags',
  surfaces: [dagsView, dagDrawerView],
  palette,
  afterPoll(ctl) {
    if (findSurface(ctl, 'dags')) void ctl.loadDags();
    refreshDagDrawer(ctl);
  },
};
