// The DAG drawer (spec 08 §4.11): runs, dependency graph, task states with approve / reject on waiting gates,
// XCom and a task's log, spliced on the right like the job drawer. `t` triggers, `b` asks for a backfill range.
// Runs and the open run refresh after every poll while the drawer is open (Q18); `Tab` switches tabs (Q16).
import {
  type ApiDag,
  type ApiDagRun,
  type ApiDagRuns,
  type ApiTaskEntry,
  type ApiXcom,
  layoutGraph,
  showDecisionButtons,
} from '../../../dashboard/dag.ts';
import { formatAge } from '../../../dashboard/format.ts';
import type { Controller } from '../../app/controller.ts';
import type { Key } from '../../app/keys.ts';
import type { Surface } from '../../app/state.ts';
import { seg } from '../../data/client.ts';
import { LogTail } from '../../data/tail.ts';
import { Line } from '../../text/line.ts';
import { flatten } from '../../text/sanitize.ts';
import { reink, type Style } from '../../text/theme.ts';
import { cellWidth, fit } from '../../text/width.ts';
import { drawerWidth, tabStrip } from '../drawer/drawer.ts';
import { clampScroll, clampSel, cycleTab, findSurface, noteScrollMax, patchSurface } from '../surface.ts';
import type { DrawerPaint, RenderCtx, View } from '../types.ts';
import { backfillDag, decideTask, triggerDag } from './actions.ts';
import { dagStateRole } from './roles.ts';

export const DAG_TABS = ['runs', 'graph', 'tasks', 'xcom', 'logs'] as const;
export type DagTab = (typeof DAG_TABS)[number];

export interface DagSurface extends Surface {
  kind: 'dag';
  dag: string;
  tab: DagTab;
  runs: Readonly<ApiDagRuns['runs']> | string | null;
  runSel: number;
  /** the run opened with `Enter` on the runs tab */
  run: ApiDagRun | string | null;
  taskSel: number;
  xcom: Readonly<ApiXcom['entries']> | string | null;
  /** the task whose log the logs tab shows */
  logTask: string | null;
  tail: LogTail | null;
  /** rows scrolled on the graph, xcom and logs tabs */
  scroll: number;
  /** the backfill range being typed, null when the input is closed */
  backfill: string | null;
}

const KIND = 'dag';

const runsPath = (dag: string) => `/dags/${seg(dag)}/runs`;

function loadRuns(ctl: Controller, dag: string): void {
  ctl.deps.client.json<ApiDagRuns>(`${runsPath(dag)}?limit=50`).then(
    (r) => patchSurface<DagSurface>(ctl, KIND, { runs: r.runs ?? [] }, (d) => d.dag === dag),
    (e: Error) => patchSurface<DagSurface>(ctl, KIND, { runs: e.message }, (d) => d.dag === dag),
  );
}

function loadRun(ctl: Controller, dag: string, runKey: string, withXcom: boolean): void {
  const path = `${runsPath(dag)}/${seg(runKey)}`;
  const mine = (d: DagSurface) => d.dag === dag && (typeof d.run !== 'object' || d.run?.runKey === runKey);
  ctl.deps.client.json<ApiDagRun>(path).then(
    (run) => patchSurface<DagSurface>(ctl, KIND, { run }, (d) => d.dag === dag),
    (e: Error) => patchSurface<DagSurface>(ctl, KIND, { run: e.message }, mine),
  );
  if (withXcom)
    ctl.deps.client.json<ApiXcom>(`${path}/xcom`).then(
      (x) => patchSurface<DagSurface>(ctl, KIND, { xcom: x.entries ?? [] }, (d) => d.dag === dag),
      (e: Error) => patchSurface<DagSurface>(ctl, KIND, { xcom: e.message }, (d) => d.dag === dag),
    );
}

export function openDagDrawer(ctl: Controller, dag: string): void {
  ctl.close(KIND);
  ctl.push({
    kind: KIND,
    dag,
    tab: 'runs',
    runs: null,
    runSel: 0,
    run: null,
    taskSel: 0,
    xcom: null,
    logTask: null,
    tail: null,
    scroll: 0,
    backfill: null,
  } as DagSurface);
  loadRuns(ctl, dag);
}

/** Q18: the open drawer's runs and run refresh after every poll. */
export function refreshDagDrawer(ctl: Controller): void {
  const d = findSurface<DagSurface>(ctl, KIND);
  if (!d) return;
  loadRuns(ctl, d.dag);
  if (d.run && typeof d.run === 'object') loadRun(ctl, d.dag, d.run.runKey, false);
}

/** The open run's task instances in the DAG's task order (mapped instances after their task). */
export function taskKeys(dag: ApiDag | undefined, run: ApiDagRun): string[] {
  const order = new Map((dag?.tasks ?? []).map((t, i) => [t.id, i]));
  return Object.keys(run.tasks).sort((a, b) => {
    const ea = run.tasks[a]!;
    const eb = run.tasks[b]!;
    return (
      (order.get(ea.id) ?? 1e9) - (order.get(eb.id) ?? 1e9) ||
      (ea.mapIndex ?? -1) - (eb.mapIndex ?? -1) ||
      a.localeCompare(b)
    );
  });
}

const dagOf = (ctl: Pick<Controller, 'state'>, name: string) =>
  ctl.state.data.dags?.find((d) => d.name === name);

function ageOf(at: number | string | null | undefined, now: number): string {
  if (at === null || at === undefined) return '—';
  const ms = typeof at === 'number' ? (at < 1e12 ? at * 1000 : at) : Date.parse(at);
  return Number.isFinite(ms) ? formatAge(Math.max(0, now - ms)) : '—';
}

type Span = [string, Style];

function line(ctx: RenderCtx, width: number, spans: Span[], base: Style = {}): string {
  const l = new Line(ctx.theme, width, base);
  for (const [t, st] of spans) l.add(t, st);
  return l.done();
}

function stateWord(e: ApiTaskEntry): string {
  return e.awaitingApproval && !e.approval ? 'awaiting' : e.state;
}

function bodyRows(d: DagSurface, ctx: RenderCtx, width: number): string[] {
  const { s, g } = ctx;
  const out: string[] = [];
  const dim: Style = { fg: 'dim' };
  const say = (text: string, st: Style = dim) => out.push(line(ctx, width, [[text, st]]));
  const dag = dagOf(ctx.ctl, d.dag);
  switch (d.tab) {
    case 'runs': {
      if (d.runs === null) say(' loading…');
      else if (typeof d.runs === 'string') say(` ⚠ ${flatten(d.runs)}`, { fg: 'warn' });
      else if (d.runs.length === 0) say(' no runs yet — t to trigger one');
      else
        d.runs.forEach((r, i) => {
          const bg = i === d.runSel ? 'sel' : 'bg';
          out.push(
            line(
              ctx,
              width,
              [
                [i === d.runSel ? ` ${g.marker}` : '  ', { fg: 'accent', bg }],
                [fit(flatten(r.runKey), 28), { fg: i === d.runSel ? 'bright' : 'fg', bg }],
                [` ${fit(flatten(r.state), 12)}`, { fg: dagStateRole(r.state), bg }],
                [` ${ageOf(r.createdAt, s.now)}`, { fg: 'dim', bg }],
              ],
              { bg },
            ),
          );
        });
      break;
    }
    case 'graph': {
      const tasks = dag?.tasks ?? [];
      if (tasks.length === 0) {
        say(dag ? ' no tasks' : ' DAG not loaded');
        break;
      }
      const run = typeof d.run === 'object' ? d.run : null;
      const layout = layoutGraph(tasks);
      const depth = Math.max(...layout.nodes.map((n) => n.depth));
      for (let k = 0; k <= depth; k++) {
        const spans: Span[] = [[` ${k} `, dim]];
        for (const n of layout.nodes.filter((x) => x.depth === k)) {
          const st = run?.tasks[n.id];
          const word = st ? stateWord(st) : '';
          spans.push([
            `[${flatten(n.id)}${word ? ` ${word}` : ''}] `,
            { fg: st ? dagStateRole(word) : 'fg' },
          ]);
        }
        out.push(line(ctx, width, spans));
      }
      const arrow = s.ascii ? '->' : '─▶';
      for (const e of layout.edges) say(`     ${flatten(e.from)} ${arrow} ${flatten(e.to)}`);
      break;
    }
    case 'tasks': {
      if (d.run === null) {
        say(' open a run first (runs tab, enter)');
        break;
      }
      if (typeof d.run === 'string') {
        say(` ⚠ ${flatten(d.run)}`, { fg: 'warn' });
        break;
      }
      const run = d.run;
      say(` run ${flatten(run.runKey)}`, { fg: 'fg', bold: true });
      taskKeys(dag, run).forEach((key, i) => {
        const e = run.tasks[key]!;
        const bg = i === d.taskSel ? 'sel' : 'bg';
        const word = stateWord(e);
        const spans: Span[] = [
          [i === d.taskSel ? ` ${g.marker}` : '  ', { fg: 'accent', bg }],
          [fit(flatten(key), 26), { fg: i === d.taskSel ? 'bright' : 'fg', bg }],
          [` ${word}`, { fg: dagStateRole(word), bg }],
        ];
        if (e.attempt > 1) spans.push([` · try ${e.attempt}`, { fg: 'dim', bg }]);
        if (e.approval)
          spans.push([` · ${e.approval.decision} by ${flatten(e.approval.by)}`, { fg: 'dim', bg }]);
        const task = dag?.tasks.find((t) => t.id === e.id);
        if (s.data.access.approve && showDecisionButtons(e, task))
          spans.push(['  ► a approve · R reject', { fg: 'warn', bg, bold: true }]);
        out.push(line(ctx, width, spans, { bg }));
      });
      break;
    }
    case 'xcom': {
      if (d.run === null) say(' open a run first (runs tab, enter)');
      else if (d.xcom === null) say(' loading…');
      else if (typeof d.xcom === 'string') say(` ⚠ ${flatten(d.xcom)}`, { fg: 'warn' });
      else if (d.xcom.length === 0) say(' no XCom values');
      else
        for (const x of d.xcom) {
          const value = x.value === undefined ? `(${x.size} bytes)` : flatten(x.value);
          out.push(
            line(ctx, width, [
              [` ${fit(flatten(`${x.taskkey}.${x.key}`), 24)} `, { fg: 'accent' }],
              [value, { fg: 'fg' }],
            ]),
          );
        }
      break;
    }
    case 'logs': {
      if (d.logTask === null) {
        say(' pick a task on the tasks tab, enter');
        break;
      }
      say(` task: ${flatten(d.logTask)}`, { fg: 'fg', bold: true });
      const tail = d.tail;
      if (tail?.error) say(`  ⚠ ${flatten(tail.error)}`, { fg: 'warn' });
      for (const e of tail?.entries ?? []) {
        if (e.kind === 'meta') continue;
        const l = new Line(ctx.theme, width);
        l.add(` ${g.logBar}`, { fg: e.kind === 'stderr' ? 'fail' : 'border' });
        const text = reink(e.text, ctx.theme, { fg: 'fg', bg: 'bg' });
        l.add('', { fg: 'fg' }).raw(text, cellWidth(text));
        out.push(l.done());
      }
      if (tail?.ended)
        say(tail.entries.some((e) => e.kind !== 'meta') ? '  ── end of log ──' : '  ── no output ──');
      else if (tail && tail.entries.length === 0 && !tail.error) say('  waiting for output…');
      break;
    }
  }
  return out;
}

function paint(d: DagSurface, ctx: RenderCtx): DrawerPaint {
  const { s, theme, g } = ctx;
  const width = drawerWidth(s.cols) - 1;
  const height = s.rows - 1;
  const rows: string[] = [
    line(ctx, width, [
      [` ⧉ ${flatten(d.dag)}`, { fg: 'accent', bold: true }],
      [s.data.access.control ? '  t trigger · b backfill · esc close' : '  esc close', { fg: 'dim' }],
    ]),
  ];
  rows.push(...tabStrip(ctx, width, DAG_TABS, d.tab));
  if (d.backfill !== null)
    rows.push(
      line(ctx, width, [
        [' backfill FROM..TO: ', { fg: 'accent' }],
        [d.backfill + g.cursor, { fg: 'bright', bg: 'sel' }],
      ]),
    );
  const room = height - rows.length;
  const body = bodyRows(d, ctx, width);
  // Lists keep their selection in view; the read-only tabs scroll by rows.
  const selRow = d.tab === 'runs' ? d.runSel : d.tab === 'tasks' ? d.taskSel + 1 : -1;
  if (selRow < 0) noteScrollMax(KIND, body.length - room);
  const top = selRow >= 0 ? Math.max(0, selRow - room + 1) : clampScroll(KIND, d.scroll);
  rows.push(...body.slice(top, top + room));
  const blank = new Line(theme, width).done();
  while (rows.length < height) rows.push(blank);
  return { placement: 'drawer', rows };
}

function openTaskLog(ctl: Controller, d: DagSurface, run: ApiDagRun, key: string): void {
  if (d.tail) ctl.release(KIND, d.tail);
  const tail = new LogTail(`${runsPath(d.dag)}/${seg(run.runKey)}/tasks/${seg(key)}/logs`, {
    client: ctl.deps.client,
    now: ctl.deps.now,
    onChange: () => ctl.repaint(),
  });
  tail.follow = false;
  ctl.own(KIND, tail).start();
  ctl.update(d, { tab: 'logs', logTask: key, tail, scroll: 0 });
}

function backfillKey(d: DagSurface, key: Key, ctl: Controller): boolean {
  const text = d.backfill ?? '';
  if (key.name === 'enter') {
    ctl.update(d, { backfill: null });
    void backfillDag(ctl, d.dag, text).then((ok) => ok && loadRuns(ctl, d.dag));
  } else if (key.name === 'backspace') ctl.update(d, { backfill: [...text].slice(0, -1).join('') });
  else if (key.ctrl && key.name === 'u') ctl.update(d, { backfill: '' });
  else if (key.text !== '') ctl.update(d, { backfill: text + key.text });
  return true;
}

export const dagDrawerView: View<DagSurface> = {
  kind: KIND,
  paint,
  focused: (d) => d.backfill !== null,
  blur: (d, { ctl }) => ctl.update(d, { backfill: null }),
  key(d, key, { ctl }) {
    if (d.backfill !== null) return backfillKey(d, key, ctl);
    const tab = cycleTab(DAG_TABS, d.tab, key.name);
    if (tab) {
      ctl.update(d, { tab, scroll: 0 });
      return true;
    }
    const run = typeof d.run === 'object' ? d.run : null;
    const keys = run ? taskKeys(dagOf(ctl, d.dag), run) : [];
    const { control, approve } = ctl.state.data.access;
    switch (key.name) {
      case 't':
        if (!control) return true;
        void triggerDag(ctl, d.dag).then((rk) => rk !== null && loadRuns(ctl, d.dag));
        return true;
      case 'b':
        if (control) ctl.update(d, { backfill: '' });
        return true;
    }
    const move = key.name === 'j' || key.name === 'down' ? 1 : key.name === 'k' || key.name === 'up' ? -1 : 0;
    const page = key.name === 'pagedown' ? 10 : key.name === 'pageup' ? -10 : 0;
    if (d.tab === 'runs') {
      const runs = typeof d.runs === 'object' && d.runs ? d.runs : [];
      if (move) ctl.update(d, { runSel: clampSel(d.runSel, move, runs.length) });
      else if (key.name === 'enter' && runs[d.runSel]) {
        const rk = runs[d.runSel]!.runKey;
        ctl.update(d, { tab: 'tasks', run: null, xcom: null, taskSel: 0 });
        loadRun(ctl, d.dag, rk, true);
      }
      return true;
    }
    if (d.tab === 'tasks') {
      const sel = keys[d.taskSel];
      if (move) ctl.update(d, { taskSel: clampSel(d.taskSel, move, keys.length) });
      else if (key.name === 'enter' && run && sel) openTaskLog(ctl, d, run, sel);
      else if ((key.name === 'a' || key.name === 'R') && approve && run && sel) {
        const entry = run.tasks[sel]!;
        // Q16: only a gate that waits for a decision takes one.
        if (
          !showDecisionButtons(
            entry,
            dagOf(ctl, d.dag)?.tasks.find((t) => t.id === entry.id),
          )
        ) {
          ctl.toast(`${flatten(sel)} is not a waiting approval gate`, 'warn');
          return true;
        }
        const decision = key.name === 'a' ? 'approve' : 'reject';
        void decideTask(ctl, d.dag, run.runKey, sel, decision).then(
          (ok) => ok && loadRun(ctl, d.dag, run.runKey, false),
        );
      }
      return true;
    }
    if (move || page) ctl.update(d, { scroll: clampScroll(KIND, clampScroll(KIND, d.scroll) + move + page) });
    else if (key.name === 'home') ctl.update(d, { scroll: 0 });
    return true;
  },
};
