// The next-fire radar (spec 08 §4.12; the web twin is RadarView.tsx): the ten soonest fires of the enabled jobs
// with live countdowns, and a ten-minute track with a `◆` per fire, each listed job in its own colour — all from
// the shared engine over `/jobs`, so it moves every second without a request.
import { compileJob } from '../../../dashboard/engine.ts';
import { formatCountdown, formatUtcClock } from '../../../dashboard/format.ts';
import { buildRadar, RADAR_WINDOW_MS, type Radar, trackPosition } from '../../../dashboard/radar.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import type { Surface } from '../../app/state.ts';
import { flatten } from '../../text/sanitize.ts';
import type { Role } from '../../text/theme.ts';
import { fit, fitRight } from '../../text/width.ts';
import { innerWidth } from '../panel.ts';
import {
  commonPanelKey,
  type PanelGlyphs,
  type PanelRow,
  paintPanel,
  panelDescriptor,
  panelGlyphs,
  type ScrollSurface,
} from '../panelkit.ts';
import type { PanelPaint, RenderCtx, View, ViewDescriptor } from '../types.ts';

export interface RadarSurface extends ScrollSurface {
  kind: 'radar';
}

const WIDTH = 76;
export const RADAR_LIST = 10;
const LANE_ROLES: readonly Role[] = ['run', 'ok', 'pending', 'warn', 'accent'];

let memo: { jobs: readonly ApiJob[]; second: number; radar: Radar } | null = null;

/** The radar at this second (memoised: a frame is painted many times a second while keys arrive). */
export function radarAt(jobs: readonly ApiJob[], now: number): Radar {
  const second = Math.floor(now / 1000) * 1000;
  if (memo?.jobs === jobs && memo.second === second) return memo.radar;
  const compiled = jobs.map((j) => ({ name: j.name, enabled: j.enabled, compiled: compileJob(j) }));
  const radar = buildRadar(compiled, second, { count: RADAR_LIST });
  memo = { jobs, second, radar };
  return radar;
}

/** The track: one cell per (window / width), `◆` where a fire falls, coloured like its job's row. */
function track(
  radar: Radar,
  now: number,
  width: number,
  roleOf: (name: string) => Role,
  pg: PanelGlyphs,
): PanelRow {
  const cells: Array<[string, Role]> = Array.from({ length: width }, () => [pg.rule, 'border']);
  for (const f of radar.track) {
    const i = Math.min(width - 1, Math.floor(trackPosition(f.at, now) * width));
    const role = roleOf(f.name);
    // a listed job wins a shared cell over an unlisted one
    if (cells[i]![0] === pg.rule || cells[i]![1] === 'dim') cells[i] = [pg.mark, role];
  }
  return cells.map(([t, r]) => [t, { fg: r }]);
}

function axis(width: number): string {
  const out = Array.from({ length: width }, () => ' ');
  for (let m = 0; m <= 10; m += 2) {
    const label = m === 0 ? 'now' : `+${m}m`;
    const at = Math.min(width - label.length, Math.round(((m * 60_000) / RADAR_WINDOW_MS) * width));
    for (let i = 0; i < label.length; i++) out[at + i] = label[i]!;
  }
  return out.join('');
}

function paint(r: RadarSurface, ctx: RenderCtx): PanelPaint {
  const { s } = ctx;
  const inner = innerWidth(WIDTH, s.cols);
  const radar = radarAt(s.data.jobs, s.now);
  const pg = panelGlyphs(ctx.g);
  const byName = new Map(s.data.jobs.map((j) => [j.name, j]));
  const roles = new Map(radar.next.map((f, i) => [f.name, LANE_ROLES[i % LANE_ROLES.length]!]));
  const roleOf = (name: string): Role => roles.get(name) ?? 'dim';
  const head: PanelRow[] = [
    [
      [` ${radar.next.length} upcoming`, { fg: 'bright', bold: true }],
      [
        ` · ${radar.scheduled} scheduled jobs · ${radar.track.length} fires in the next 10 min · UTC`,
        { fg: 'dim' },
      ],
    ],
  ];
  const rows: PanelRow[] = [];
  if (radar.next.length === 0) rows.push([[' no enabled job has a future fire', { fg: 'dim' }]]);
  radar.next.forEach((f, i) => {
    const left = f.at - s.now;
    const n = radar.windowFires.get(f.name) ?? 0;
    rows.push([
      [`${fitRight(String(i + 1), 3)} `, { fg: 'dim' }],
      [`${pg.mark} `, { fg: roleOf(f.name) }],
      [`${fit(flatten(f.name), 18)} `, { fg: left < 10_000 ? 'bright' : 'fg', bold: left < 10_000 }],
      [`${fit(flatten(byName.get(f.name)?.schedule ?? ''), 14)} `, { fg: 'dim' }],
      [`${formatUtcClock(f.at)} `, { fg: 'dim' }],
      [
        fitRight(left <= 0 ? 'due' : `in ${formatCountdown(left, true)}`, 11),
        { fg: left < 10_000 ? 'warn' : 'accent' },
      ],
      [n > 1 ? ` ×${n}/10m` : '', { fg: 'dim' }],
    ]);
  });
  if (radar.next.length > 0) {
    const w = Math.max(10, inner - 2);
    rows.push([['']]);
    rows.push([[' ', {}], ...track(radar, s.now, w, roleOf, pg)]);
    rows.push([[` ${axis(w)}`, { fg: 'dim' }]]);
  }
  return paintPanel(r, ctx, {
    title: 'next-fire radar',
    width: WIDTH,
    head,
    rows,
    hint: 'j/k scroll · v week · P pressure · esc close',
  });
}

export const radarView: View<RadarSurface> = {
  kind: 'radar',
  paint,
  key: (r, key, ctx) => commonPanelKey(r, key, ctx),
};

export const radarDescriptor: ViewDescriptor = panelDescriptor('radar', radarView, {
  key: 'R',
  title: 'Toggle next-fire radar',
  icon: '⌁',
  what: 'Next-fire radar',
  create: () => ({ kind: 'radar', scroll: 0 }) as RadarSurface as Surface,
});
