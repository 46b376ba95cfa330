// The week calendar (spec 08 §4.12; the web twin is WeekCalendar.tsx): seven UTC days from today's midnight,
// every enabled job's fires from the shared engine in the job's own zone, as a day × hour grid, then the agenda
// of the fires in time order and the "background hum" of jobs that fire too often to chart. `←`/`→` move by a
// week; `r` recomputes. Rebuilt only when the schedules, the week or the day change.

import type { ApiDag } from '../../../dashboard/dag.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import {
  buildWeek,
  HUM_THRESHOLD,
  localMidnight,
  type WeekModel,
  weekJobs,
} from '../../../dashboard/week.ts';
import type { Surface } from '../../app/state.ts';
import type { Glyphs } from '../../text/glyphs.ts';
import { flatten } from '../../text/sanitize.ts';
import type { Role } from '../../text/theme.ts';
import { fit, fitRight } from '../../text/width.ts';
import {
  commonPanelKey,
  type PanelRow,
  paintPanel,
  panelDescriptor,
  panelGlyphs,
  type ScrollSurface,
} from '../panelkit.ts';
import type { PanelPaint, RenderCtx, View, ViewDescriptor } from '../types.ts';

export interface WeekSurface extends ScrollSurface {
  kind: 'week';
  /** weeks from this one */
  offset: number;
  /** bumped by `r`: rebuild even when nothing changed */
  rev: number;
}

const WIDTH = 96;
const ZONE = 'UTC';
const DAY_COL = 11;
const HOUR_CELL = 3;
const AGENDA_MAX = 200;
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

let memo: { key: string; model: WeekModel } | null = null;
let sigMemo: { jobs: readonly ApiJob[]; dags: readonly ApiDag[]; sig: string } | null = null;

/** What the week depends on in `/jobs` and `/dags` (each poll hands in a new array with the same schedules). */
function scheduleSignature(jobs: readonly ApiJob[], dags: readonly ApiDag[]): string {
  if (sigMemo?.jobs === jobs && sigMemo.dags === dags) return sigMemo.sig;
  const sig = [
    ...jobs.map(
      (j) => `${j.name}|${j.schedule}|${j.schedule_resolved ?? ''}|${j.timezone}|${j.utc}|${j.enabled}`,
    ),
    ...dags.map((d) => `dag:${d.name}|${d.scheduled}|${d.schedule ?? ''}|${d.enabled}`),
  ].join('\n');
  sigMemo = { jobs, dags, sig };
  return sig;
}

/**
 * The week model of the jobs and the scheduled DAGs (issue 33: a DAG's fires belong in the week, as in the
 * pressure view), rebuilt only when the schedules, the week, the day or `rev` change.
 */
export function weekModel(
  jobs: readonly ApiJob[],
  now: number,
  offset: number,
  rev = 0,
  dags: readonly ApiDag[] = [],
): WeekModel {
  const key = `${localMidnight(ZONE, now)}|${offset}|${rev}|${scheduleSignature(jobs, dags)}`;
  if (memo?.key === key) return memo.model;
  const model = buildWeek(weekJobs(jobs, dags), { nowMs: now, zone: ZONE, weekOffset: offset });
  memo = { key, model };
  return model;
}

const hhmm = (minute: number): string =>
  `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

function gridRows(m: WeekModel, now: number, g: Glyphs): PanelRow[] {
  const pg = panelGlyphs(g);
  const shades = [pg.dot, ...pg.shade.slice(1)];
  let axis = '';
  for (let h = 0; h < 24; h += 6) axis += fit(String(h).padStart(2, '0'), HOUR_CELL * 6);
  const rows: PanelRow[] = [
    [
      [' '.repeat(DAY_COL + 1), {}],
      [axis, { fg: 'dim' }],
      [' fires', { fg: 'dim' }],
    ],
  ];
  const nowHour = Math.floor(now / 3_600_000);
  for (const day of m.days) {
    const counts = new Array<number>(24).fill(0);
    for (const c of day.chips) counts[Math.floor(c.minute / 60)]!++;
    const weekend = day.weekday === 0 || day.weekday === 6;
    const label = day.today ? 'today' : `${DAYS[day.weekday]} ${day.date.slice(5)}`;
    const row: PanelRow = [
      [` ${fit(label, DAY_COL)}`, { fg: day.today ? 'accent' : weekend ? 'dim' : 'fg', bold: day.today }],
    ];
    counts.forEach((n, h) => {
      const hourStart = day.start + h * 3_600_000;
      const past = hourStart + 3_600_000 <= now;
      const current = Math.floor(hourStart / 3_600_000) === nowHour;
      const role: Role = current ? 'warn' : n === 0 ? 'border' : past ? 'dim' : 'accent';
      row.push([shades[Math.min(4, n)]!.repeat(HOUR_CELL - 1), { fg: role }], [' ', {}]);
    });
    row.push([fitRight(String(day.chips.length + day.more), 5), { fg: 'dim' }]);
    rows.push(row);
  }
  rows.push([
    [' '.repeat(DAY_COL + 1), {}],
    [`${shades.join('')} 0, 1, 2, 3, 4+ fires in the hour`, { fg: 'dim' }],
  ]);
  return rows;
}

function agendaRows(m: WeekModel, now: number): PanelRow[] {
  const chips = m.days.flatMap((d) => d.chips.map((c) => ({ c, d })));
  if (chips.length === 0) return [];
  const rows: PanelRow[] = [[[' upcoming fires (UTC)', { fg: 'dim', bold: true }]]];
  for (const { c, d } of chips.slice(0, AGENDA_MAX)) {
    const past = c.at < now;
    rows.push([
      [`   ${DAYS[d.weekday]} ${d.date.slice(5)} ${hhmm(c.minute)}  `, { fg: past ? 'dim' : 'fg' }],
      [flatten(c.name), { fg: past ? 'dim' : 'bright' }],
    ]);
  }
  const more = chips.length - AGENDA_MAX + m.days.reduce((n, d) => n + d.more, 0);
  if (more > 0) rows.push([[`   … +${more} more`, { fg: 'dim' }]]);
  return rows;
}

function humRows(m: WeekModel): PanelRow[] {
  if (m.hum.length === 0) return [];
  const rows: PanelRow[] = [
    [[` background hum (more than ${HUM_THRESHOLD} fires a week, not charted)`, { fg: 'dim', bold: true }]],
  ];
  for (const h of m.hum)
    rows.push([
      [`   ${fit(flatten(h.name), 24)} `, { fg: 'fg' }],
      [flatten(h.description.toLowerCase()), { fg: 'dim' }],
    ]);
  return rows;
}

function paint(w: WeekSurface, ctx: RenderCtx): PanelPaint {
  const { s } = ctx;
  const m = weekModel(s.data.jobs, s.now, w.offset, w.rev, s.data.dags ?? []);
  const schedules = new Set([
    ...m.days.flatMap((d) => d.chips.map((c) => c.name)),
    ...m.hum.map((h) => h.name),
  ]).size;
  const first = m.days[0]!.date;
  const last = m.days[6]!.date;
  const when = w.offset === 0 ? 'next 7 days' : `${first} – ${last}`;
  const head: PanelRow[] = [
    [
      [` ${when}: ${m.fires} fires from ${schedules} schedules`, { fg: 'bright', bold: true }],
      [m.hum.length > 0 ? ` · ${m.hum.length} frequent jobs summarized below` : '', { fg: 'fg' }],
      [' · UTC', { fg: 'dim' }],
    ],
  ];
  let rows: PanelRow[];
  if (m.fires === 0 && m.hum.length === 0)
    rows = [
      [[` no scheduled fires in ${w.offset === 0 ? 'the next 7 days' : 'these 7 days'}`, { fg: 'dim' }]],
    ];
  else rows = [...gridRows(m, s.now, ctx.g), [['']], ...agendaRows(m, s.now), [['']], ...humRows(m)];
  return paintPanel(w, ctx, {
    title: 'week (UTC)',
    width: WIDTH,
    head,
    rows,
    hint: '←/→ week · r recompute · j/k scroll · esc close',
  });
}

export const weekView: View<WeekSurface> = {
  kind: 'week',
  paint,
  key(w, key, ctx) {
    const { ctl } = ctx;
    if (key.name === 'left' || key.name === 'right') {
      ctl.update(w, { offset: w.offset + (key.name === 'right' ? 1 : -1), scroll: 0 });
      return true;
    }
    if (key.name === 'r' && !key.ctrl) {
      ctl.update(w, { rev: w.rev + 1 });
      void ctl.loadDags();
      ctl.toast('↻ week', 'info');
      return true;
    }
    return commonPanelKey(w, key, ctx);
  },
};

export const weekDescriptor: ViewDescriptor = panelDescriptor('week', weekView, {
  key: 'v',
  title: 'Toggle week calendar',
  icon: '◫',
  what: 'Week calendar',
  create: () => ({ kind: 'week', scroll: 0, offset: 0, rev: 0 }) as WeekSurface as Surface,
  // the DAGs' schedules as they are now (the first load's list may be old)
  opened: (ctl) => void ctl.loadDags(),
});
