// `cron_get_incident` (beyond the reference): the dashboard's verdict bar and incident timeline as
// data (its schema is in incident.schema.ts, its handler in src/mcp/handlers/node.ts). It feeds the
// dashboard's own pure functions (src/dashboard: failureBanner, incidentTimeline, summarize,
// jobStatus) the same input the dashboard gives them, the `/jobs` rows, so the web view, the TUI
// and an MCP client reach the same verdict.
import type { JobRow } from '../../api/jobs.ts';
import { type Correlation, incidentTimeline, verdictText } from '../../dashboard/incident.ts';
import { failureBanner, jobStatus, signatureText, summarize } from '../../dashboard/status.ts';
import type { Incident } from './incident.schema.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function groupOut(g: Correlation['groups'][number]) {
  return { signature: g.signature, names: g.names, first: iso(g.first)!, last: iso(g.last)! };
}

/**
 * The verdict over every currently failing job (exactly the dashboard's bar), the timeline of each
 * job's newest finish (only the last `hours` when given), and optionally one job's place in it.
 */
export function incidentView(
  rows: readonly JobRow[],
  now: number,
  hours: number | null,
  focus: string | null,
): Incident {
  const banner = failureBanner(rows);
  const correlation = banner?.correlation;
  const since = hours === null ? null : now - hours * 3_600_000;
  const timeline = incidentTimeline(rows, correlation)
    .filter((e) => since === null || e.finishedAt >= since)
    .map((e) => ({
      name: e.name,
      outcome: e.outcome as Incident['timeline'][number]['outcome'],
      finished_at: iso(e.finishedAt)!,
      started_at: iso(e.startedAt),
      duration: e.duration,
      exit_code: e.exitCode,
      reason: e.reason,
      running_now: e.runningNow,
      gap_seconds: e.gapMs === null ? null : e.gapMs / 1000,
      group: e.group,
    }));
  // The gap of the oldest entry kept is to an entry cut by `hours`: not part of this view.
  const oldest = timeline[timeline.length - 1];
  if (since !== null && oldest) oldest.gap_seconds = null;
  let verdict: Incident['verdict'] = 'none';
  let headline: string | null = null;
  let detail: string | null = null;
  if (banner) {
    const first = banner.jobs[0]!;
    if (banner.kind === 'single') {
      verdict = 'single';
      headline = `JOB FAILING — ${first.name} · ${signatureText(first.exitCode, first.reason)}`;
    } else {
      verdict = banner.correlation.verdict;
      headline = `FLEET EVENT — ${banner.jobs.length} jobs failing`;
      detail = verdictText(banner.correlation);
    }
  }
  const out: Incident = {
    verdict,
    headline,
    detail,
    summary: summarize(rows),
    failing: (banner?.jobs ?? []).map((f) => ({
      name: f.name,
      exit_code: f.exitCode,
      reason: f.reason,
      signature: signatureText(f.exitCode, f.reason),
      finished_at: iso(f.finishedAt),
    })),
    groups: (correlation?.groups ?? []).map(groupOut),
    timeline,
    hours,
  };
  if (focus !== null) {
    const job = rows.find((j) => j.name === focus)!;
    const group = correlation?.groups.find((g) => g.names.includes(focus));
    out.focus = {
      name: focus,
      status: jobStatus(job),
      failing: out.failing.some((f) => f.name === focus),
      group: group ? groupOut(group) : null,
      last: timeline.find((e) => e.name === focus) ?? null,
    };
  }
  return out;
}
