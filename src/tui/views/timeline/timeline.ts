// The incident timeline (spec 08 §4.9): every job's latest finished run, newest first, from the shared
// incidentTimeline; failures of the incident set (the correlated group, else every failing job) are marked
// `◉ blast radius`. `i` on the board toggles it; Enter opens that job's drawer; `f` shows failures only.
import { formatAge, formatDuration } from '../../../dashboard/format.ts';
import { incidentTimeline } from '../../../dashboard/incident.ts';
import { failureBanner, signatureText } from '../../../dashboard/status.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import type { Surface } from '../../app/state.ts';
import { STATUS_ROLE } from '../../text/glyphs.ts';
import { flatten } from '../../text/sanitize.ts';
import { addPaletteSource } from '../palette/palette.ts';
import { bodyRow, innerWidth } from '../panel.ts';
import type { PanelPaint, View } from '../types.ts';

export interface TimelineSurface extends Surface {
  kind: 'timeline';
  sel: number;
  failingOnly: boolean;
}

const WIDTH = 90;
const STATUS = { success: 'ok', failure: 'failed', cancelled: 'cancelled', unknown: 'unknown' } as const;

/** Names in the incident set: the largest correlated group when there is one, else every failing job. */
export function incidentSet(jobs: readonly ApiJob[]): Set<string> {
  const banner = failureBanner(jobs);
  if (banner === null) return new Set();
  const top = banner.correlated ? banner.correlation.groups[0] : undefined;
  return new Set(top ? top.names : banner.jobs.map((f) => f.name));
}

function entries(jobs: readonly ApiJob[], failingOnly: boolean) {
  const all = incidentTimeline(jobs);
  return failingOnly ? all.filter((e) => e.outcome === 'failure') : all;
}

export const openTimeline = (): TimelineSurface => ({ kind: 'timeline', sel: 0, failingOnly: false });

addPaletteSource((ctl) => [
  {
    id: 'timeline',
    title: 'Incident timeline',
    group: 'actions',
    hint: '◷',
    run: () => ctl.push(openTimeline()),
  },
]);

export const timelineView: View<TimelineSurface> = {
  kind: 'timeline',
  paint(t, ctx): PanelPaint {
    const { s, g } = ctx;
    const inner = innerWidth(WIDTH, s.cols);
    const list = entries(s.data.jobs, t.failingOnly);
    const blast = incidentSet(s.data.jobs);
    const visible = Math.max(4, s.rows - 8);
    const sel = Math.min(t.sel, Math.max(0, list.length - 1));
    const top = Math.max(0, sel - visible + 1);
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
    list.slice(top, top + visible).forEach((e, i) => {
      const on = top + i === sel;
      const bg = on ? 'sel' : 'bg';
      const status = STATUS[e.outcome] ?? 'unknown';
      const failed = e.outcome === 'failure';
      body.push(
        bodyRow(ctx, inner, [
          [formatAge(Math.max(0, s.now - e.finishedAt)).padEnd(9), { fg: 'dim', bg }],
          [`${g.status[status]} `, { fg: STATUS_ROLE[status], bg }],
          [flatten(e.name).padEnd(24).slice(0, 24), { fg: on ? 'bright' : 'fg', bg }],
          [failed ? ` ${flatten(signatureText(e.exitCode, e.reason))}` : '', { fg: 'dim', bg }],
          [` ${formatDuration(e.duration)}`, { fg: 'dim', bg }],
          [failed && blast.has(e.name) ? '  ◉ blast radius' : '', { fg: 'fail', bg, bold: true }],
        ]),
      );
    });
    return {
      placement: 'panel',
      title: `incident timeline${t.failingOnly ? ' — failing only' : ''}`,
      width: WIDTH,
      body,
      hint: 'j/k move · enter open · f failing only · esc close',
    };
  },
  key(t, key, ctx) {
    const { ctl, s } = ctx;
    const list = entries(s.data.jobs, t.failingOnly);
    if (key.name === 'j' || key.name === 'down')
      ctl.update(t, { sel: Math.min(Math.max(0, list.length - 1), t.sel + 1) });
    else if (key.name === 'k' || key.name === 'up') ctl.update(t, { sel: Math.max(0, t.sel - 1) });
    else if (key.name === 'f') ctl.update(t, { failingOnly: !t.failingOnly, sel: 0 });
    else if (key.name === 'i') ctl.close('timeline');
    else if (key.name === 'enter') {
      const e = list[Math.min(t.sel, list.length - 1)];
      ctl.close('timeline');
      if (e) ctl.openDrawer(e.name);
    }
    return true;
  },
};
