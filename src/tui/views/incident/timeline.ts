// The incident timeline (spec 08 §4.9): every job's latest finished run, newest first, failures with their
// exit code and reason, the incident set marked as the blast radius. `Enter` opens a job, `m` mitigates.
import { formatAge, formatDuration } from '../../../dashboard/format.ts';
import { OUTCOME_STATUS } from '../../../dashboard/health.ts';
import {
  correlateFailures,
  failingJobs,
  incidentTimeline,
  signatureText,
} from '../../../dashboard/incident.ts';
import { OUTCOME_TONE } from '../../../dashboard/sparkline.ts';
import type { Controller } from '../../app/controller.ts';
import type { Surface } from '../../app/state.ts';
import { flatten } from '../../text/sanitize.ts';
import { fit } from '../../text/width.ts';
import { command } from '../command.ts';
import { bodyRow, innerWidth } from '../panel.ts';
import { clampSel, findSurface } from '../surface.ts';
import type { PanelPaint, View, ViewDescriptor } from '../types.ts';
import { mitigateView, openMitigate } from './mitigate.ts';
import { incidentSet } from './set.ts';

export interface TimelineSurface extends Surface {
  kind: 'timeline';
  sel: number;
  failingOnly: boolean;
}

const WIDTH = 90;

function entries(ctl: Pick<Controller, 'state'>, failingOnly: boolean) {
  const jobs = ctl.state.data.jobs;
  const all = incidentTimeline(jobs, correlateFailures(failingJobs(jobs)));
  return failingOnly ? all.filter((e) => e.outcome === 'failure') : all;
}

export function toggleTimeline(ctl: Controller): void {
  if (findSurface(ctl, 'timeline')) ctl.close('timeline');
  else ctl.push({ kind: 'timeline', sel: 0, failingOnly: false } as TimelineSurface);
}

export const timelineView: View<TimelineSurface> = {
  kind: 'timeline',
  paint(t, ctx): PanelPaint {
    const { s, g } = ctx;
    const inner = innerWidth(WIDTH, s.cols);
    const list = entries(ctx.ctl, t.failingOnly);
    const blast = new Set(incidentSet(s.data.jobs));
    const body: string[] = [];
    if (list.length === 0)
      body.push(
        bodyRow(ctx, inner, [
          [
            t.failingOnly ? 'nothing failing — clear the filter (f)' : 'nothing has finished yet',
            { fg: 'dim' },
          ],
        ]),
      );
    const visible = Math.max(4, s.rows - 1 - 8);
    const sel = Math.min(t.sel, Math.max(0, list.length - 1));
    const top = Math.max(0, sel - visible + 1);
    list.slice(top, top + visible).forEach((e, i) => {
      const on = top + i === sel;
      const bg = on ? 'sel' : 'bg';
      const failed = e.outcome === 'failure';
      body.push(
        bodyRow(ctx, inner, [
          [fit(formatAge(Math.max(0, s.now - e.finishedAt)), 9), { fg: 'dim', bg }],
          [`${g.status[OUTCOME_STATUS[e.outcome]]} `, { fg: OUTCOME_TONE[e.outcome], bg }],
          [fit(flatten(e.name), 24), { fg: on ? 'bright' : 'fg', bg, bold: failed }],
          [failed ? ` ${flatten(signatureText(e.exitCode, e.reason))}` : '', { fg: 'dim', bg }],
          [` ${formatDuration(e.duration)}`, { fg: 'dim', bg }],
          [blast.has(e.name) && failed ? '  ◉ blast radius' : '', { fg: 'fail', bg, bold: true }],
        ]),
      );
    });
    return {
      placement: 'panel',
      title: `incident timeline${t.failingOnly ? ' — failing only' : ''}`,
      width: WIDTH,
      body,
      hint: 'j/k move · enter open · f failing only · m mitigate · esc close',
    };
  },
  key(t, key, { ctl }) {
    const list = entries(ctl, t.failingOnly);
    switch (key.name) {
      case 'j':
      case 'down':
        ctl.update(t, { sel: clampSel(t.sel, 1, list.length) });
        break;
      case 'k':
      case 'up':
        ctl.update(t, { sel: clampSel(t.sel, -1, list.length) });
        break;
      case 'enter': {
        const e = list[Math.min(t.sel, list.length - 1)];
        ctl.close('timeline');
        if (e) ctl.openDrawer(e.name);
        break;
      }
      case 'f':
        ctl.update(t, { failingOnly: !t.failingOnly, sel: 0 });
        break;
      case 'm':
        ctl.close('timeline');
        openMitigate(ctl, 'incident');
        break;
      case 'i':
        ctl.close('timeline');
        break;
    }
    return true;
  },
};

/** The timeline and the mitigate console it leads to: `i` on the board, two palette entries. */
export const incidentDescriptor: ViewDescriptor = {
  folder: 'incident',
  surfaces: [timelineView, mitigateView],
  keys: [{ keys: ['i'], what: 'Incident timeline', run: ({ ctl }) => toggleTimeline(ctl) }],
  palette: ({ ctl }) => [
    command('timeline', 'Incident timeline', '◉', () => toggleTimeline(ctl)),
    ...(ctl.state.data.access.control
      ? [command('mitigate', 'Mitigate failing jobs', '⚕', () => openMitigate(ctl, 'failing'))]
      : []),
  ],
};
