// The activity heatmap (spec 08 §4.12; the web twin is HeatView.tsx): per job (the first 40, enabled first then
// by name) 24 buckets over the last 6 h / 24 h / 7 d of its retained runs, ` ░▒▓█` against the busiest bucket,
// coloured by the bucket's worst outcome. Runs come from one `/activity` request for every job (spec 10 §4.4),
// or from `/jobs/{name}/runs` one job at a time when the daemon answers it 404; again only after a job finished
// another run (the shared staleness signature); `r` fetches everything.
import { formatUtcClock } from '../../../dashboard/format.ts';
import {
  activityRuns,
  bucketLabel,
  bucketRuns,
  HEAT_BUCKETS,
  HEAT_WINDOWS,
  type HeatRun,
  type HeatWindow,
  heatJobs,
  heatLevel,
  runsSignature,
  staleRuns,
} from '../../../dashboard/heat.ts';
import { OUTCOME_TONE } from '../../../dashboard/sparkline.ts';
import type { ApiActivity, ApiJob, ApiRuns } from '../../../dashboard/types.ts';
import type { Controller } from '../../app/controller.ts';
import type { Surface } from '../../app/state.ts';
import { HttpError, seg } from '../../data/client.ts';
import { flatten } from '../../text/sanitize.ts';
import { fit, fitRight } from '../../text/width.ts';
import {
  commonPanelKey,
  openSurface,
  type PanelRow,
  paintPanel,
  panelDescriptor,
  panelGlyphs,
  patchKind,
  type ScrollSurface,
} from '../panelkit.ts';
import type { PanelPaint, RenderCtx, View, ViewDescriptor } from '../types.ts';

export interface HeatSurface extends ScrollSurface {
  kind: 'heatmap';
  window: HeatWindow;
  /** bumped when a batch of runs arrived (the cache lives outside the snapshot) */
  version: number;
  /** jobs still to fetch in the running batch */
  loading: number;
}

const WIDTH = 96;
/** Spec 08 §6.7: the heatmap reads at most 40 jobs. */
export const HEAT_JOBS = 40;
const NAME_COL = 24;
const CELL = 2;
const WINDOWS = Object.keys(HEAT_WINDOWS) as HeatWindow[];

type RunsCache = Map<string, { sig: string; runs: HeatRun[] }>;
/** Controllers whose daemon answered `/activity` with 404 (an older daemon): asked job by job. */
const noActivity = new WeakSet<Controller>();

/** Every stale job's runs in one `/activity` request; false when the daemon has no such route or failed. */
async function gatherAll(ctl: Controller, todo: string[], sigs: Map<string, string>): Promise<boolean> {
  if (noActivity.has(ctl)) return false;
  try {
    const all = activityRuns(await ctl.deps.client.json<ApiActivity>('/activity'), todo);
    for (const [name, runs] of all) cacheOf(ctl).set(name, { sig: sigs.get(name) ?? '', runs });
    patchKind<HeatSurface>(ctl, 'heatmap', (h) => ({ loading: 0, version: h.version + 1 }));
    return true;
  } catch (e) {
    if (e instanceof HttpError && e.status === 404) noActivity.add(ctl);
    return false;
  }
}
/** Per controller (one daemon), kept across openings: a job's runs are fetched again only after a new finish. */
const caches = new WeakMap<Controller, RunsCache>();
const batches = new WeakSet<Controller>();

function cacheOf(ctl: Controller): RunsCache {
  let c = caches.get(ctl);
  if (!c) {
    c = new Map();
    caches.set(ctl, c);
  }
  return c;
}

/** Fetches the stale jobs' runs one after another (one batch at a time). */
async function gather(ctl: Controller): Promise<void> {
  if (batches.has(ctl)) return;
  const cache = cacheOf(ctl);
  const shown = heatJobs(ctl.state.data.jobs, HEAT_JOBS);
  const todo = staleRuns(shown, cache);
  if (todo.length === 0) return;
  batches.add(ctl);
  const sigs = new Map(shown.map((j) => [j.name, runsSignature(j)]));
  patchKind<HeatSurface>(ctl, 'heatmap', { loading: todo.length });
  try {
    if (await gatherAll(ctl, todo, sigs)) return;
    for (const [i, name] of todo.entries()) {
      if (!ctl.state.stack.some((x) => x.kind === 'heatmap')) break;
      try {
        const d = await ctl.deps.client.json<ApiRuns>(`/jobs/${seg(name)}/runs`);
        cache.set(name, { sig: sigs.get(name) ?? '', runs: Array.isArray(d.runs) ? d.runs : [] });
      } catch {
        // removed between polls, or the daemon went away: drawn empty, tried again next poll
      }
      patchKind<HeatSurface>(ctl, 'heatmap', (h) => ({
        loading: todo.length - i - 1,
        version: h.version + 1,
      }));
    }
  } finally {
    batches.delete(ctl);
  }
}

function jobRow(
  shades: readonly string[],
  job: ApiJob,
  runs: HeatRun[] | undefined,
  end: number,
  windowMs: number,
  max: number,
): { row: PanelRow; sum: number } {
  const cells = bucketRuns(runs ?? [], end, windowMs);
  const sum = cells.reduce((n, c) => n + c.runs, 0);
  const row: PanelRow = [[` ${fit(flatten(job.name), NAME_COL)} `, { fg: job.enabled ? 'fg' : 'dim' }]];
  for (const c of cells) {
    const level = heatLevel(c.runs, max);
    row.push([shades[level]!.repeat(CELL), { fg: c.worst ? OUTCOME_TONE[c.worst] : 'dim' }]);
  }
  row.push([fitRight(runs === undefined ? '…' : String(sum), 6), { fg: 'dim' }]);
  return { row, sum };
}

function paint(h: HeatSurface, ctx: RenderCtx): PanelPaint {
  const { s } = ctx;
  const cache = cacheOf(ctx.ctl);
  const shown = heatJobs(s.data.jobs, HEAT_JOBS);
  // The window ends at the next whole minute, so a run that finished this minute is counted.
  const end = Math.ceil(s.now / 60_000) * 60_000;
  const windowMs = HEAT_WINDOWS[h.window];
  const cellsOf = (j: ApiJob) => bucketRuns(cache.get(j.name)?.runs ?? [], end, windowMs);
  const max = Math.max(0, ...shown.flatMap((j) => cellsOf(j).map((c) => c.runs)));
  const shades = panelGlyphs(ctx.g).shade;
  const built = shown.map((j) => jobRow(shades, j, cache.get(j.name)?.runs, end, windowMs, max));
  const total = built.reduce((n, b) => n + b.sum, 0);
  const spanMin = Math.round(windowMs / HEAT_BUCKETS / 60_000);
  const span = spanMin < 60 ? `${spanMin} min` : `${Math.round(spanMin / 6) / 10} h`.replace('.0 h', ' h');
  const meta = [`${total} runs`, `${shown.length} jobs`];
  if (s.data.jobs.length > HEAT_JOBS) meta[1] += ` (first ${HEAT_JOBS} of ${s.data.jobs.length})`;
  meta.push(`last ${h.window} in ${HEAT_BUCKETS} buckets of ${span} · UTC`);
  if (h.loading > 0) meta.push(`loading ${h.loading}…`);
  const head: PanelRow[] = [[[` ${meta.join(' · ')}`, { fg: 'bright', bold: true }]]];
  const axis: PanelRow = [[' '.repeat(NAME_COL + 2), {}]];
  const heads = bucketRuns([], end, windowMs);
  for (let i = 0; i < heads.length; i += 6)
    axis.push([fit(bucketLabel(heads[i]!.from, h.window), CELL * 6), { fg: 'dim' }]);
  axis.push([fitRight('runs', 6), { fg: 'dim' }]);
  head.push(axis);
  let rows = built.map((b) => b.row);
  if (shown.length === 0) rows = [[[' no jobs configured', { fg: 'dim' }]]];
  else if (!shown.some((j) => cache.has(j.name))) rows = [[[' gathering run history…', { fg: 'dim' }]]];
  rows.push([['']]);
  rows.push([
    [' fewer ', { fg: 'dim' }],
    [shades.slice(1).join(''), { fg: 'ok' }],
    [' more · colour = worst outcome: ', { fg: 'dim' }],
    ['ok ', { fg: 'ok' }],
    ['lost ', { fg: 'pending' }],
    ['cancelled ', { fg: 'off' }],
    ['failed', { fg: 'fail' }],
    [` · now ${formatUtcClock(s.now)} UTC`, { fg: 'dim' }],
  ]);
  return paintPanel(h, ctx, {
    title: 'activity heatmap',
    width: WIDTH,
    head,
    rows,
    hint: 'w window (6h/24h/7d) · r reload · j/k scroll · esc close',
  });
}

export const heatView: View<HeatSurface> = {
  kind: 'heatmap',
  paint,
  key(h, key, ctx) {
    const { ctl } = ctx;
    if (key.name === 'w' && !key.ctrl) {
      ctl.update(h, { window: WINDOWS[(WINDOWS.indexOf(h.window) + 1) % WINDOWS.length]! });
      return true;
    }
    if (key.name === 'r' && !key.ctrl) {
      cacheOf(ctl).clear();
      ctl.toast('↻ heatmap', 'info');
      void gather(ctl);
      return true;
    }
    return commonPanelKey(h, key, ctx);
  },
};

export const heatDescriptor: ViewDescriptor = panelDescriptor(
  'heat',
  heatView,
  {
    key: 'H',
    title: 'Toggle activity heatmap',
    icon: '▦',
    what: 'Activity heatmap',
    create: () =>
      ({ kind: 'heatmap', scroll: 0, window: '24h', version: 0, loading: 0 }) as HeatSurface as Surface,
    opened: (ctl) => void gather(ctl),
  },
  {
    afterPoll: (ctl) => {
      if (openSurface(ctl, 'heatmap')) void gather(ctl);
    },
  },
);
