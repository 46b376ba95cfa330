// The command palette's built-in actions (spec 06 §9.2): every view, toolbar button, header button and setting,
// and each job's own actions, built from a context of callbacks so the list stays pure. The web shell registers
// `viewCommands`, `coreCommands` and `jobCommands` with its registry (src/webui/app/usePaletteCommands.ts); a
// view of its own adds a source with `useRegisterCommands` (src/webui/chrome/pageCommands.ts).
import { OPTIONAL_COLUMNS, type OptionalColumn } from './columns.ts';
import type { Command } from './commands.ts';
import type { Segment } from './health.ts';
import type { DrawerTab, Route } from './route.ts';
import {
  CVD_LABEL,
  CVD_MODES,
  type CvdMode,
  type Density,
  type Motion,
  REFRESH_CHOICES,
  type RefreshChoice,
  SCALES,
  type Scale,
  THEME_LABEL,
  THEMES,
  type Theme,
} from './settings.ts';
import { SORT_KEYS, SORT_LABEL, type SortKey } from './table.ts';
import type { ApiJob } from './types.ts';

export interface CoreContext {
  view: Route['view'];
  setView(view: Route['view']): void;
  hasFleet: boolean;
  hasCluster: boolean;
  focusFilter(): void;
  setSegment(segment: Segment): void;
  refreshNow(): void;
  setRefresh(choice: RefreshChoice): void;
  sort: { key: SortKey; desc: boolean };
  setSort(key: SortKey, desc: boolean): void;
  cols: readonly OptionalColumn[];
  toggleCol(id: OptionalColumn): void;
  theme: Theme;
  setTheme(theme: Theme): void;
  flipTheme(): void;
  cycleTheme(): void;
  density: Density;
  setDensity(d: Density): void;
  motion: Motion;
  setMotion(m: Motion): void;
  setCvd(m: CvdMode): void;
  setScale(s: Scale): void;
  openSettings(): void;
  openHelp(): void;
  openToken(): void;
  copyJobSetId(): void;
  scrollTo(id: string): void;
}

const cmd = (
  group: string,
  id: string,
  title: string,
  run: () => void,
  extra: Partial<Command> = {},
): Command => ({
  id,
  title,
  group,
  run,
  ...extra,
});

export function coreCommands(c: CoreContext): Command[] {
  const out: Command[] = [
    cmd('view', 'view.jobs', 'Show the jobs table', () => c.setView('jobs'), {
      keywords: '☰ jobs table list',
    }),
    cmd('view', 'view.week', 'Show the week calendar', () => c.setView('week'), {
      keywords: '◫ week calendar 7 days',
      hint: 'v',
    }),
  ];
  if (c.hasFleet)
    out.push(
      cmd('view', 'view.fleet', 'Show the fleet view', () => c.setView('fleet'), {
        keywords: '⊞ fleet nodes',
      }),
    );
  if (c.hasCluster)
    out.push(
      cmd('view', 'view.cluster', 'Go to the cluster panel', () => c.scrollTo('cluster-panel'), {
        keywords: 'cluster peers quorum leader',
      }),
    );
  out.push(
    cmd('view', 'view.dags', 'Go to the DAGs card', () => c.scrollTo('dag-card'), {
      keywords: '⧉ dags workflows',
    }),
    cmd('table', 'table.filter', 'Filter jobs…', c.focusFilter, { hint: '/', keywords: 'search find' }),
  );
  for (const sg of ['all', 'ok', 'fail', 'run', 'off'] as const)
    out.push(
      cmd(
        'table',
        `table.segment.${sg}`,
        `Show ${sg === 'all' ? 'all jobs' : `${sg} jobs only`}`,
        () => c.setSegment(sg),
        {
          keywords: `segment status ${sg === 'fail' ? 'failing failed' : sg === 'run' ? 'running' : sg === 'off' ? 'disabled' : ''}`,
        },
      ),
    );
  for (const key of SORT_KEYS) {
    const on = c.sort.key === key;
    out.push(
      cmd(
        'table',
        `table.sort.${key}`,
        `Sort by ${SORT_LABEL[key]}${on ? ` (now ${c.sort.desc ? 'descending' : 'ascending'}: reverse)` : ''}`,
        () => c.setSort(key, on ? !c.sort.desc : false),
        {
          keywords: 'order column',
        },
      ),
    );
  }
  for (const col of OPTIONAL_COLUMNS) {
    const on = c.cols.includes(col.id);
    out.push(
      cmd(
        'table',
        `table.col.${col.id}`,
        `${on ? 'Hide' : 'Show'} the ${col.label} column`,
        () => c.toggleCol(col.id),
        {
          keywords: `⊞ cols columns ${col.title}`,
        },
      ),
    );
  }
  out.push(cmd('app', 'app.refresh', 'Refresh now', c.refreshNow, { hint: 'g', keywords: 'reload poll' }));
  for (const r of REFRESH_CHOICES)
    out.push(
      cmd(
        'app',
        `app.refresh.${r}`,
        r === 'paused' ? 'Pause refreshing' : `Refresh every ${r} s`,
        () => c.setRefresh(r),
        {
          keywords: 'interval poll',
        },
      ),
    );
  out.push(
    cmd('settings', 'app.settings', 'Open settings', c.openSettings, { keywords: 'preferences options ⚙' }),
    cmd('app', 'app.help', 'Keyboard shortcuts', c.openHelp, { hint: '?', keywords: 'help keys' }),
    cmd('app', 'app.token', 'Set the API token', c.openToken, { keywords: 'auth bearer login' }),
    cmd('app', 'app.jobset', 'Copy the job-set id', c.copyJobSetId, { keywords: 'hash config' }),
    cmd('settings', 'theme.flip', 'Light ⇄ dark theme', c.flipTheme, { hint: 'T', keywords: 'theme toggle' }),
    cmd('settings', 'theme.cycle', 'Next theme', c.cycleTheme, { hint: 't', keywords: 'theme cycle' }),
  );
  for (const t of THEMES)
    if (t !== c.theme)
      out.push(
        cmd('settings', `theme.${t}`, `Theme: ${THEME_LABEL[t]}`, () => c.setTheme(t), {
          keywords: 'colours contrast',
        }),
      );
  for (const m of CVD_MODES)
    out.push(
      cmd('settings', `cvd.${m}`, `Status colours: ${CVD_LABEL[m]}`, () => c.setCvd(m), {
        keywords: 'colour blind vision deuteranopia protanopia tritanopia',
      }),
    );
  out.push(
    cmd(
      'settings',
      'density.toggle',
      c.density === 'compact' ? 'Comfortable rows' : 'Compact rows',
      () => c.setDensity(c.density === 'compact' ? 'comfortable' : 'compact'),
      { keywords: 'density' },
    ),
    cmd(
      'settings',
      'motion.toggle',
      c.motion === 'reduce' ? 'Allow motion' : 'Reduce motion',
      () => c.setMotion(c.motion === 'reduce' ? 'system' : 'reduce'),
      { keywords: 'animation' },
    ),
  );
  for (const s of SCALES)
    out.push(
      cmd('settings', `scale.${s}`, `UI scale ${s} %`, () => c.setScale(s), { keywords: 'zoom size' }),
    );
  return out;
}

export interface JobContext {
  open(name: string, tab: DrawerTab): void;
  run(name: string): void;
  cancel(name: string): void;
  copy(job: ApiJob): void;
  /** pause for an hour or resume (spec 10 §1.5); offered for rows that carry `paused` */
  pause?(job: ApiJob): void;
  /** the token holds the control scope (spec 10 §5.4); false drops run, cancel and pause; default true */
  control?: boolean;
}

/** Per job: open (logs / history / schedule), run or cancel, pause or resume, copy the command. */
export function jobCommands(jobs: readonly ApiJob[], c: JobContext): Command[] {
  const control = c.control !== false;
  const out: Command[] = [];
  for (const j of jobs) {
    const n = j.name;
    out.push(
      cmd('job', `job.open:${n}`, `${n}`, () => c.open(n, 'logs'), { keywords: `open logs ${j.command}` }),
      cmd('job', `job.history:${n}`, `${n} › history`, () => c.open(n, 'history'), { keywords: 'runs' }),
      cmd('job', `job.schedule:${n}`, `${n} › schedule`, () => c.open(n, 'schedule'), {
        keywords: j.schedule,
      }),
    );
    if (control && j.running)
      out.push(
        cmd('job', `job.cancel:${n}`, `${n} › cancel`, () => c.cancel(n), { keywords: 'stop kill ■' }),
      );
    else if (control && j.enabled)
      out.push(cmd('job', `job.run:${n}`, `${n} › run now`, () => c.run(n), { keywords: 'start ▶' }));
    const pause = c.pause;
    if (control && pause && j.paused !== undefined)
      out.push(
        j.paused
          ? cmd('job', `job.resume:${n}`, `${n} › resume`, () => pause(j), { keywords: 'unpause ⏵' })
          : cmd('job', `job.pause:${n}`, `${n} › pause for an hour`, () => pause(j), {
              keywords: 'hold ⏸',
              hint: 'p',
            }),
      );
    out.push(cmd('job', `job.copy:${n}`, `${n} › copy command`, () => c.copy(j), { keywords: 'clipboard' }));
  }
  return out;
}

export interface ViewContext {
  go(view: Route['view']): void;
  openIncident(kind: 'timeline' | 'mitigate' | 'run-failing'): void;
  openSandbox(): void;
  openNodeHistory(): void;
  /** `/state` answered with a store */
  stateEnabled: boolean;
  /** how many DAGs `/dags` lists */
  dagCount: number;
  toggleDags(): void;
  /** the token holds the control scope (spec 10 §5.4); false drops mitigate and run-failing; default true */
  control?: boolean;
}

/** The views of the later issues (radar, pressure, heat, tail, tv, state), the incident tools and the modals. */
export function viewCommands(c: ViewContext): Command[] {
  const go = (view: Route['view']) => () => c.go(view);
  const list: Command[] = [
    cmd('view', 'view.radar', 'Show the next-fire radar', go('radar'), { keywords: '⌁ radar next' }),
    cmd('view', 'view.pressure', 'Show the schedule pressure', go('pressure'), {
      keywords: '▥ pressure grid',
    }),
    cmd('view', 'view.heat', 'Show the activity heatmap', go('heat'), { keywords: '▦ heat' }),
    cmd('view', 'view.tail', 'Tail several jobs at once', go('tail'), { keywords: '≋ tail multi logs' }),
    cmd('view', 'view.tv', 'Show the wallboard', go('tv'), { hint: 'w', keywords: '▭ tv wallboard' }),
    cmd('incident', 'incident.timeline', 'Open the incident timeline', () => c.openIncident('timeline'), {
      hint: 'i',
    }),
    ...(c.control === false
      ? []
      : [
          cmd('incident', 'incident.mitigate', 'Open the mitigate console', () => c.openIncident('mitigate')),
          cmd('incident', 'incident.run-failing', 'Run every failing job again', () =>
            c.openIncident('run-failing'),
          ),
        ]),
    cmd('tool', 'tool.sandbox', 'Open the cron sandbox', () => c.openSandbox(), {
      keywords: '✎ cron expression preview',
    }),
    cmd('tool', 'tool.node', "Show this node's CPU and memory history", () => c.openNodeHistory(), {
      keywords: 'resources',
    }),
  ];
  if (c.stateEnabled)
    list.push(cmd('view', 'view.state', 'Inspect the state store', go('state'), { keywords: '⛁ state kv' }));
  if (c.dagCount > 0)
    list.push(
      cmd('view', 'view.dags', 'Show or hide the DAG card', () => c.toggleDags(), { keywords: '⧉ dags' }),
    );
  return list;
}
