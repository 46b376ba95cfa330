// The drawer's History, Resources and Schedule tabs (spec 08 §4.4) as text rows. Data comes from the drawer's
// own fetches (runs, resources) or from the shared cron engine (schedule); all strings are flattened.
import { civilInFrame, compileJob, lintJob, nextFiresOf } from '../../../dashboard/engine.ts';
import {
  formatCivil,
  formatCountdown,
  formatDuration,
  formatLoad,
  parseIso,
} from '../../../dashboard/format.ts';
import { OUTCOME_STATUS, STATUS_TONE } from '../../../dashboard/health.ts';
import { type ApiJobResources, formatBytes } from '../../../dashboard/resources.ts';
import { jobStatus } from '../../../dashboard/status.ts';
import type { ApiJob, ApiRuns } from '../../../dashboard/types.ts';
import { flatten } from '../../text/sanitize.ts';
import { utcStamp } from '../../text/stamp.ts';
import type { Role } from '../../text/theme.ts';
import { wrapText } from '../panelkit.ts';
import type { RenderCtx } from '../types.ts';

/** A text row of a tab: spans of (text, role, bold). */
export type Span = [string, Role?, boolean?];
export type Row = Span[];

export function historyRows(runs: ApiRuns | null | string, ctx: RenderCtx): Row[] {
  if (runs === null) return [[[' loading…', 'dim']]];
  if (typeof runs === 'string') return [[[` ⚠ ${runs}`, 'warn']]];
  const st = runs.stats;
  const out: Row[] = [];
  out.push([
    [` ${st.total} runs  `, 'fg', true],
    [`${st.success} ok · ${st.failure} fail · ${st.cancelled} cancelled · ${st.unknown} unknown`, 'dim'],
  ]);
  if (st.success_rate !== null) {
    const p = Math.round(st.success_rate * 100);
    out.push([
      [` success ${p}%`, p >= 90 ? 'ok' : 'warn'],
      [
        `  avg ${formatDuration(st.avg_duration)} · min ${formatDuration(st.min_duration)} · max ${formatDuration(st.max_duration)}`,
        'dim',
      ],
    ]);
  }
  const cpuAvg = st.avg_cpu_seconds ?? null;
  const peak = st.max_rss_bytes ?? null;
  if (cpuAvg !== null || peak !== null)
    out.push([
      [` cpu avg ${cpuAvg === null ? '—' : `${cpuAvg.toFixed(1)}s`} · peak rss ${formatBytes(peak)}`, 'dim'],
    ]);
  out.push([
    [` ${ctx.g.h.repeat(40)}`, 'border'],
    [' times UTC', 'dim'],
  ]);
  if (runs.runs.length === 0) {
    out.push([[' no runs retained yet', 'dim']]);
    return out;
  }
  const longest = Math.max(0.001, ...runs.runs.map((r) => r.duration ?? 0));
  const ordered = runs.runs
    .slice()
    .sort((a, b) => (parseIso(b.finished_at) ?? 0) - (parseIso(a.finished_at) ?? 0));
  for (const r of ordered) {
    const status = OUTCOME_STATUS[r.outcome] ?? 'unknown';
    const started = parseIso(r.started_at ?? r.finished_at);
    const bar = '▪'.repeat(Math.max(1, Math.min(12, Math.round(((r.duration ?? 0) / longest) * 12))));
    const detail: string[] = [];
    if (r.exit_code !== null) detail.push(`exit ${r.exit_code}`);
    if (r.fail_reason) detail.push(flatten(r.fail_reason));
    const cpu = r.resources?.cpu_total_seconds;
    if (cpu != null) detail.push(`${cpu.toFixed(1)}s cpu`);
    out.push([
      [` ${ctx.g.status[status]} `, STATUS_TONE[status]],
      [started === null ? '—' : utcStamp(started), 'fg'],
      [`  ${formatDuration(r.duration).padEnd(8)}`, 'dim'],
      [`${bar.padEnd(13)}`, STATUS_TONE[status]],
      [detail.join(' · '), 'dim'],
    ]);
  }
  return out;
}

export function resourceRows(res: ApiJobResources | null | string): Row[] {
  if (res === null) return [[[' loading…', 'dim']]];
  if (typeof res === 'string') return [[[` ⚠ ${res}`, 'warn']]];
  if (!res.monitored)
    return [
      [[' resource sampling is off for this job', 'fg']],
      [[' set monitorResources: true in its config to sample CPU and memory', 'dim']],
    ];
  // Q7: the live numbers sit under `current` of the newest live instance.
  const cur = res.live.length > 0 ? res.live[res.live.length - 1]!.current : null;
  const cpu = formatLoad(cur?.cpu_percent);
  const out: Row[] = [[[` live: ${cpu} cpu · ${formatBytes(cur?.rss_bytes)} rss`, cur ? 'run' : 'dim']]];
  out.push([[` ${'started (UTC)'.padEnd(22)}${'cpu'.padEnd(10)}peak rss`, 'dim', true]]);
  const runs = res.runs.slice().reverse();
  if (runs.length === 0) out.push([[' no sampled runs yet', 'dim']]);
  for (const r of runs) {
    const at = parseIso(r.started_at ?? null);
    const cpuS = r.resources?.cpu_total_seconds;
    out.push([
      [` ${(at === null ? '—' : utcStamp(at)).padEnd(22)}`, 'fg'],
      [`${cpuS == null ? '—' : `${cpuS.toFixed(1)}s`}`.padEnd(10), 'fg'],
      [formatBytes(r.resources?.max_rss_bytes), 'fg'],
    ]);
  }
  return out;
}

export function scheduleRows(job: ApiJob, ctx: RenderCtx, width = 80): Row[] {
  const c = compileJob(job);
  const out: Row[] = [[[` ${flatten(job.schedule)}`, 'accent', true]]];
  out.push([[` ${flatten(c.description)}`, c.error ? 'fail' : 'fg']]);
  if (job.schedule_resolved && job.schedule_resolved !== job.schedule)
    out.push([[` resolves to ${flatten(job.schedule_resolved)}`, 'dim']]);
  out.push([[` reference frame: ${flatten(c.frameLabel)}`, 'dim']]);
  out.push([[' ', 'fg']]);
  if (c.reboot) out.push([[' runs once, at daemon start', 'fg']]);
  else if (c.sched) {
    out.push([[' next runs:', 'fg', true]]);
    const zone = stampZone(job, c.frameLabel);
    for (const at of nextFiresOf(c, ctx.s.now, 8))
      out.push([[`   ${formatCivil(civilInFrame(c.frame, at), true)} ${zone}`, 'fg']]);
  }
  // The daemon's findings (an empty list = clean); a daemon that sends none gets the same linter run here.
  const findings: { level: string; message: string }[] = job.schedule_findings
    ? job.schedule_findings
    : [
        ...(c.error ? [{ level: 'error', message: `rejected: ${c.error}` }] : []),
        ...(job.never_fires ? [{ level: 'error', message: 'never fires' }] : []),
        ...lintJob(c, ctx.s.now),
      ];
  if (findings.length > 0) out.push([[' ', 'fg']]);
  for (const f of findings.slice(0, 3)) {
    const [glyph, role]: [string, Role] =
      f.level === 'error' ? ['✕', 'fail'] : f.level === 'warning' ? ['⚠', 'warn'] : ['·', 'dim'];
    for (const text of wrapText(`${glyph} ${flatten(f.message)}`, Math.max(10, width - 2), '  '))
      out.push([[` ${text}`, role]]);
  }
  if (job.scheduled_in !== null) {
    // The board's countdown, drift-corrected on the monotonic clock like every other one.
    const left = job.scheduled_in * 1000 - (ctx.s.mono - ctx.s.data.fetchedAt);
    const text = formatCountdown(left, c.hasSeconds);
    out.push([[` daemon says: next fire ${text === 'due' ? 'now' : `in ${text}`}`, 'ok']]);
  }
  out.push([[` status: ${jobStatus(job)}`, 'dim']]);
  return out;
}

/** The zone a next-runs stamp is in: the job's zone, `UTC`, or `local` for a daemon-local job. */
function stampZone(job: ApiJob, frameLabel: string): string {
  if (frameLabel === 'UTC' || frameLabel.endsWith('drawn in UTC)')) return 'UTC';
  return job.timezone ?? 'local';
}
