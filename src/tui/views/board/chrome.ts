// The board's chrome (spec 08 §4.2): header, toolbar, verdict bar, footer and toasts. Every row is cut to
// the terminal width; the header sheds node load, then the job-set id, then the version before it would wrap.
import { clusterAlert } from '../../../dashboard/cluster.ts';
import { CONNECTION_TEXT, connectionState } from '../../../dashboard/connection.ts';
import { formatAge, formatLoad, formatUtcClock, parseIso } from '../../../dashboard/format.ts';
import { SEGMENTS } from '../../../dashboard/health.ts';
import { verdictText } from '../../../dashboard/incident.ts';
import { failureBanner, signatureText } from '../../../dashboard/status.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import type { TuiState } from '../../app/state.ts';
import { SORT_TEXT } from '../../app/state.ts';
import { Line } from '../../text/line.ts';
import { flatten } from '../../text/sanitize.ts';
import type { Role } from '../../text/theme.ts';
import { cellWidth, fitRight, truncate } from '../../text/width.ts';
import type { RenderCtx } from '../types.ts';

export function header(ctx: RenderCtx): string {
  const { s, theme, g } = ctx;
  const d = s.data;
  // The shared connection rule (the web header's): an answer older than its refresh allows reads stale.
  const conn = connectionState(
    {
      locked: d.error === 'unauthorized',
      fetchedAt: d.fetchedAt,
      failed: d.error !== null,
      intervalMs: s.pollMs > 0 ? s.pollMs : Number.POSITIVE_INFINITY,
    },
    s.mono,
  );
  const status =
    conn === 'live' || conn === 'paused'
      ? { text: `${g.live} live`, role: 'ok' as Role }
      : conn === 'stale'
        ? {
            text: `${g.offline} ${CONNECTION_TEXT.stale} ${formatAge(s.mono - d.fetchedAt)}`,
            role: 'warn' as Role,
          }
        : {
            text:
              d.error !== null && d.retryAt > s.mono && d.error !== 'unauthorized'
                ? `${g.offline} ${d.error} ${g.dot} retry in ${Math.ceil((d.retryAt - s.mono) / 1000)}s`
                : `${g.offline} ${d.error ?? 'offline'}`,
            role: 'fail' as Role,
          };
  const clock = `${formatUtcClock(s.now)} UTC`;
  const right = `${status.text} ${clock} `;
  const chips: string[] = [];
  if (d.version) chips.push(`v${d.version}`);
  if (d.jobSetId) chips.push(`${g.dot} ${d.jobSetId.slice(0, 10)}`);
  const res = d.node?.resources;
  if (res) chips.push(`${g.dot} ${pct(res.cpu_percent)} cpu ${pct(res.mem_percent)} mem`);
  const fixed = ' cronstable ⌁ tui ';
  // Shed chips from the end until the header fits on one row.
  while (chips.length > 0 && cellWidth(fixed) + cellWidth(chips.join(' ')) + 2 + cellWidth(right) > s.cols)
    chips.pop();
  const line = new Line(theme, s.cols);
  line.add(' cronstable ', { fg: 'bright', bold: true });
  line.add('⌁ tui ', { fg: 'accent' });
  if (chips.length > 0) line.add(chips.join(' '), { fg: 'dim' });
  const gap = s.cols - cellWidth(fixed) - cellWidth(chips.join(' ')) - cellWidth(right);
  if (gap > 0) line.add(' '.repeat(gap));
  line.add(status.text, { fg: status.role, bold: status.role === 'fail' });
  line.add(` ${clock} `, { fg: 'fg' });
  return line.done();
}

/** Spec 08 §3.6 percent (the shared formatter). */
export const pct = (v: number): string => formatLoad(v);

/** Enabled jobs running, failed (last run) and ok (last run): the toolbar's and the wallboard's counts. */
export function countStates(jobs: readonly ApiJob[]): { run: number; fail: number; ok: number } {
  const n = { run: 0, fail: 0, ok: 0 };
  for (const j of jobs) {
    if (!j.enabled) continue;
    if (j.running) n.run++;
    else if (j.last_run?.outcome === 'failure') n.fail++;
    else if (j.last_run?.outcome === 'success') n.ok++;
  }
  return n;
}

export function toolbar(ctx: RenderCtx, rowsShown: number): string {
  const { s, theme, g } = ctx;
  const line = new Line(theme, s.cols);
  line.add(' ');
  const box = s.filterFocused ? `/${s.filter}${g.cursor}` : s.filter ? `/${s.filter}` : `/${g.ellipsis}`;
  line.add(box, s.filterFocused ? { fg: 'bright', bg: 'sel' } : { fg: s.filter ? 'fg' : 'dim' }, 18);
  line.add(' ');
  for (const seg of SEGMENTS) {
    const on = seg === s.segment;
    line.add(` ${seg} `, on ? { fg: 'bright', bg: 'sel', bold: true } : { fg: 'dim' });
  }
  line.add('  ');
  line.add(`sort:${SORT_TEXT[s.sortKey]}${s.sortDesc ? g.down : g.up}`, { fg: 'fg' });
  line.add('  ');
  line.add(`poll:${s.pollMs === 0 ? 'off' : `${s.pollMs / 1000}s`}`, { fg: 'fg' });
  line.add('   ');
  line.add(`${rowsShown} ${rowsShown === 1 ? 'job' : 'jobs'}`, { fg: 'fg' });
  // marks of jobs gone from /jobs since are not counted (nor acted on)
  const marks = s.marked.size > 0 ? s.data.jobs.filter((j) => s.marked.has(j.name)).length : 0;
  if (marks > 0) line.add(` ${g.mark} ${marks} marked`, { fg: 'warn', bold: true });
  const { run, fail, ok } = countStates(s.data.jobs);
  if (run) line.add(` ${g.status.running} ${run}`, { fg: 'run' });
  if (fail) line.add(` ${g.status.failed} ${fail}`, { fg: 'fail' });
  if (ok) line.add(` ${g.status.ok} ${ok}`, { fg: 'ok' });
  return line.done();
}

export interface Verdict {
  sev: 'crit' | 'warn';
  glyph: string;
  head: string;
  sub: string;
}

/** The verdict over the board (spec 08 §3.4), from the shared failure banner and cluster alert. */
export function verdict(s: TuiState): Verdict | null {
  const alert = clusterAlert(s.data.cluster);
  const banner = failureBanner(s.data.jobs);
  if (alert) {
    const node = s.data.cluster?.node_name;
    // Spec 08 §3.4: the sub says which jobs also fail, else what degraded; failing jobs come first, so a
    // narrow bar still says so.
    const failing = banner?.jobs ?? [];
    const also =
      failing.length === 1
        ? `${flatten(failing[0]!.name)} also failing`
        : failing.length > 1
          ? `${failing.length} jobs also failing`
          : '';
    return {
      sev: 'crit',
      glyph: '☢',
      head: `CLUSTER ALERT — ${flatten(alert.title).toUpperCase()}`,
      sub: [also, node ? `this node: ${flatten(node)}` : '', also ? '' : flatten(alert.detail)]
        .filter((p) => p !== '')
        .join(' · '),
    };
  }
  if (banner === null) return null;
  if (banner.kind === 'single') {
    const f = banner.jobs[0]!;
    const age = f.finishedAt === null ? '' : ` · ${formatAge(Math.max(0, s.now - f.finishedAt))}`;
    return {
      sev: 'warn',
      glyph: '▲',
      head: `JOB FAILING — ${flatten(f.name)}`,
      sub: flatten(signatureText(f.exitCode, f.reason)) + age,
    };
  }
  return {
    sev: 'crit',
    glyph: '▲',
    head: `FLEET EVENT — ${banner.jobs.length} jobs failing`,
    sub: flatten(verdictText(banner.correlation)),
  };
}

export function verdictBar(ctx: RenderCtx, v: Verdict): string {
  const bg: Role = v.sev === 'crit' ? 'fail' : 'warn';
  const line = new Line(ctx.theme, ctx.s.cols, { bg, fg: 'bg', bold: true });
  line.add(` ${v.glyph} ${v.head} — ${v.sub}   (i timeline)`, { fg: 'bg', bg, bold: true });
  return line.done();
}

export const FOOTER_HINTS =
  'j/k move · enter open · r run · x cancel · p pause · c copy · / filter · g refresh · t theme · i incident · w wallboard · ctrl+k palette · ? help · q quit';

/** The footer while jobs are marked: what the marks are for. */
export const MARK_HINTS = 'space mark · r run marked · x cancel marked · esc clear marks · j/k move · ? help';

export function footer(ctx: RenderCtx, text = FOOTER_HINTS): string {
  const line = new Line(ctx.theme, ctx.s.cols);
  line.add(` ${truncate(text, ctx.s.cols - 1)}`, { fg: 'dim' });
  return line.done();
}

const TONE_BG: Record<string, Role> = { ok: 'ok', fail: 'fail', warn: 'warn', info: 'accent' };

/** Toasts right-aligned on the rows above the footer, newest highest. */
export function overlayToasts(rows: string[], ctx: RenderCtx): string[] {
  const { s, theme } = ctx;
  if (s.toasts.length === 0) return rows;
  const out = rows.slice();
  const max = Math.max(10, Math.floor(s.cols / 2));
  const list = s.toasts.slice(-4);
  list.forEach((t, i) => {
    const at = out.length - 2 - (list.length - 1 - i);
    if (at < 0) return;
    const text = truncate(` ${t.text} `, max);
    const w = cellWidth(text);
    const bg = TONE_BG[t.tone]!;
    const line = new Line(theme, s.cols);
    line.raw(truncate(out[at]!, s.cols - w, ''), s.cols - w);
    line.add(text, { fg: 'bg', bg, bold: true });
    out[at] = line.done();
  });
  return out;
}

/** `HH:MM:SS UTC`, right-aligned in `w` cells (wallboard and zen). */
export const clockRight = (now: number, w: number): string => fitRight(`${formatUtcClock(now)} UTC`, w);

/** Epoch ms a job last finished, or null. */
export const finishedAt = (j: ApiJob): number | null => parseIso(j.last_run?.finished_at);
