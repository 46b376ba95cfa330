// The command palette (spec 08 §4.5): global actions, then per-job entries, ranked by the shared fuzzy
// ranking within each group (actions before jobs, so `run` finds "Run all failing jobs" first).
import { type Command, rankCommands } from '../../../dashboard/commands.ts';
import { jobStatus } from '../../../dashboard/status.ts';
import type { Controller } from '../../app/controller.ts';
import type { Surface } from '../../app/state.ts';
import { flatten } from '../../text/sanitize.ts';
import { HUES } from '../../text/theme.ts';
import { fit, fitRight } from '../../text/width.ts';
import { command } from '../command.ts';
import { bodyRow, innerWidth } from '../panel.ts';
import type { PanelPaint, View, ViewCtx, ViewDescriptor } from '../types.ts';

export interface PaletteSurface extends Surface {
  kind: 'palette';
  query: string;
  sel: number;
}

const WIDTH = 72;
const LIMIT = 60;

/** The app-wide actions; every view's own entries come from its descriptor. */
function globalCommands({ ctl }: ViewCtx): Command[] {
  const s = ctl.state;
  const c = (id: string, title: string, run: () => void, hint: string) => command(id, title, hint, run);
  return [
    c('refresh', 'Refresh now', () => ctl.wake(), '↻'),
    ...(s.data.access.control
      ? [c('run-failing', 'Run all failing jobs', () => void runAllFailing(ctl), '▶')]
      : []),
    c(
      'theme',
      'Cycle theme',
      () => {
        const next = HUES[(HUES.indexOf(ctl.state.prefs.theme) + 1) % HUES.length]!;
        ctl.setPrefs({ theme: next });
        ctl.toast(`◐ theme: ${next}`);
      },
      '◐',
    ),
    c('light', 'Toggle light / dark', () => ctl.setPrefs({ light: !ctl.state.prefs.light }), '◑'),
    c(
      'cvd',
      'Cycle color vision mode',
      () => {
        const order = ['none', 'deutan', 'tritan'] as const;
        const next = order[(order.indexOf(ctl.state.prefs.cvd) + 1) % order.length]!;
        ctl.setPrefs({ cvd: next });
        ctl.toast(`◐ color vision: ${next}`);
      },
      '◐',
    ),
    c(
      'compact',
      'Toggle compact density',
      () => {
        ctl.setPrefs({ compact: !ctl.state.prefs.compact });
        ctl.toast(`⊟ compact: ${ctl.state.prefs.compact ? 'on' : 'off'}`);
      },
      '⊟',
    ),
    c(
      'sound',
      'Toggle audible cues',
      () => {
        ctl.setPrefs({ sound: !ctl.state.prefs.sound });
        ctl.toast(`♪ cues: ${ctl.state.prefs.sound ? 'on' : 'off'}`);
      },
      '♪',
    ),
    c(
      'copy-version',
      'Copy version',
      () => ctl.copy(s.data.version ?? '', '❏ version sent to clipboard'),
      '❏',
    ),
    c(
      'copy-jobset',
      'Copy job set id',
      () => ctl.copy(s.data.jobSetId ?? '', '❏ job set id sent to clipboard'),
      '❏',
    ),
    c('filter', 'Focus filter', () => ctl.store.set({ filterFocused: true }), '/'),
  ];
}

function jobCommands(ctl: Controller): Command[] {
  const out: Command[] = [];
  const g = (id: string, title: string, hint: string, run: () => void) =>
    command(id, title, hint, run, 'jobs');
  const control = ctl.state.data.access.control;
  for (const j of ctl.state.data.jobs) {
    const n = flatten(j.name);
    out.push(g(`logs:${j.name}`, `Logs: ${n}`, jobStatus(j), () => ctl.openDrawer(j.name)));
    if (control && j.enabled && !j.running)
      out.push(g(`run:${j.name}`, `Run: ${n}`, '▶', () => void ctl.runJob(j.name)));
    if (control && j.running)
      out.push(g(`cancel:${j.name}`, `Cancel: ${n}`, '■', () => void ctl.cancelJob(j.name)));
    out.push(
      g(`copy:${j.name}`, `Copy command: ${n}`, '❏', () =>
        ctl.copy(j.command, '❏ command sent to clipboard'),
      ),
    );
    out.push(g(`schedule:${j.name}`, `Schedule: ${n}`, '◴', () => ctl.openDrawer(j.name, 'schedule')));
  }
  return out;
}

async function runAllFailing(ctl: Controller): Promise<void> {
  const failing = ctl.state.data.jobs.filter(
    (j) => j.enabled && !j.running && j.last_run?.outcome === 'failure',
  );
  if (failing.length === 0) {
    ctl.toast('nothing failing', 'info');
    return;
  }
  for (const j of failing) await ctl.runJob(j.name);
}

/** Global entries in the order spec 08 §4.5 lists them (by id); entries of no listed id follow, DAGs last. */
const GLOBAL_ORDER = [
  'refresh',
  'run-failing',
  'theme',
  'light',
  'cvd',
  'compact',
  'sound',
  'panel:radar',
  'panel:heatmap',
  'panel:pressure',
  'panel:week',
  'panel:fleet',
  'panel:cluster',
  'panel:node',
  'multitail',
  'multitail-failing',
  'multitail-running',
  'tv',
  'timeline',
  'mitigate',
  'panel:sandbox',
  'boot',
  'copy-version',
  'copy-jobset',
  'settings',
  'help',
  'token',
  'dags',
  'state',
  'filter',
];
/** Per-job entries in the spec's order, job by job. */
const JOB_ORDER = ['logs', 'run', 'cancel', 'copy', 'schedule', 'tail'];

const stableSort = <T>(list: readonly T[], rank: (x: T) => number): T[] =>
  list
    .map((x, i) => ({ x, i, r: rank(x) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((e) => e.x);

function globalRank(c: Command): number {
  const i = GLOBAL_ORDER.indexOf(c.id);
  if (i >= 0) return i;
  return c.id.startsWith('dag:') || c.id.startsWith('trigger:')
    ? GLOBAL_ORDER.length + 1
    : GLOBAL_ORDER.length;
}

function jobRanker(jobs: readonly { name: string }[]): (c: Command) => number {
  const at = new Map(jobs.map((j, i) => [j.name, i]));
  return (c) => {
    const colon = c.id.indexOf(':');
    const kind = JOB_ORDER.indexOf(c.id.slice(0, colon));
    const job = at.get(c.id.slice(colon + 1)) ?? jobs.length;
    return job * JOB_ORDER.length + (kind < 0 ? JOB_ORDER.length - 1 : kind);
  };
}

let memo: { key: unknown[]; list: Command[] } | null = null;

/** The ranked entries for a query (memoised on the query, the job list and the registry's table). */
export function paletteEntries(ctx: ViewCtx, query: string): Command[] {
  const { ctl } = ctx;
  const key = [ctl.state.data.jobs, query, ctl.state.prefs, ctl.state.data.dags, ctx.views];
  if (memo?.key.every((v, i) => v === key[i])) return memo.list;
  // A view's per-job entries (group 'jobs', e.g. `Tail: n`) rank with the job entries, after the actions.
  const all = ctx.views.paletteCommands(ctx);
  const actions = stableSort(
    all.filter((c) => c.group !== 'jobs'),
    globalRank,
  );
  const perJob = stableSort(
    [...jobCommands(ctl), ...all.filter((c) => c.group === 'jobs')],
    jobRanker(ctl.state.data.jobs),
  );
  const list = [...rankCommands(actions, query, LIMIT), ...rankCommands(perJob, query, LIMIT)];
  memo = { key, list: list.slice(0, LIMIT) };
  return memo.list;
}

export const paletteView: View<PaletteSurface> = {
  kind: 'palette',
  focused: () => true,
  paint(p, ctx): PanelPaint {
    const inner = innerWidth(WIDTH, ctx.s.cols);
    const entries = paletteEntries(ctx, p.query);
    const visible = Math.max(4, Math.min(ctx.s.rows - 8, 14));
    const sel = Math.min(p.sel, Math.max(0, entries.length - 1));
    const top = Math.max(0, sel - visible + 1);
    const body = [
      bodyRow(ctx, inner, [
        [`${ctx.g.search} `, { fg: 'accent' }],
        [p.query + ctx.g.cursor, { fg: 'bright' }],
      ]),
    ];
    if (entries.length === 0) body.push(bodyRow(ctx, inner, [['no matching command', { fg: 'dim' }]]));
    entries.slice(top, top + visible).forEach((e, i) => {
      const on = top + i === sel;
      const bg = on ? 'sel' : 'bg';
      body.push(
        bodyRow(ctx, inner, [
          [on ? `${ctx.g.marker} ` : '  ', { fg: 'accent', bg }],
          [fit(e.title, inner - 14), { fg: on ? 'bright' : 'fg', bg }],
          [fitRight(e.hint ?? '', 12), { fg: 'dim', bg }],
        ]),
      );
    });
    return {
      placement: 'panel',
      title: 'command palette',
      width: WIDTH,
      body,
      hint: '↑/↓ move · enter run · esc close',
    };
  },
  key(p, key, ctx) {
    const { ctl } = ctx;
    if (key.name === 'enter') {
      const entry = paletteEntries(ctx, p.query)[p.sel];
      ctl.close('palette');
      entry?.run();
    } else if (key.name === 'up') ctl.update(p, { sel: Math.max(0, p.sel - 1) });
    else if (key.name === 'down')
      ctl.update(p, { sel: Math.min(paletteEntries(ctx, p.query).length - 1, p.sel + 1) });
    else if (key.name === 'backspace') ctl.update(p, { query: p.query.slice(0, -1), sel: 0 });
    else if (key.ctrl && key.name === 'u') ctl.update(p, { query: '', sel: 0 });
    else if (key.text !== '') ctl.update(p, { query: p.query + key.text, sel: 0 });
    return true;
  },
};

/** The palette (Ctrl-K / Ctrl-P, taken in dispatch before any view) and the app-wide actions. */
export const paletteDescriptor: ViewDescriptor = {
  folder: 'palette',
  surfaces: [paletteView],
  palette: globalCommands,
};
