// The jobs table's optional columns (the "⊞ cols" chooser, spec 06 §9.2): which exist, how the choice is stored,
// and the value each one shows. Pure, so the table and the sort agree on one definition.
import type { ApiHistoryEntry, ApiJob } from './types.ts';

export type OptionalColumn = 'policy' | 'tz' | 'nextat' | 'rate';

export const OPTIONAL_COLUMNS: ReadonlyArray<{ id: OptionalColumn; label: string; title: string }> = [
  { id: 'policy', label: 'Policy', title: 'cluster policy (Leader / PreferLeader / EveryNode)' },
  { id: 'tz', label: 'TZ', title: 'the zone the schedule is read in: UTC, an IANA zone, or local' },
  { id: 'nextat', label: 'Next at', title: 'next fire on this browser’s wall clock' },
  { id: 'rate', label: 'Rate', title: 'success % of the recent history' },
];

const KNOWN = new Set<string>(OPTIONAL_COLUMNS.map((c) => c.id));

/** Stored as a comma list (`cronstable.cols`); unknown names are dropped, order follows OPTIONAL_COLUMNS. */
export function parseColumns(stored: string | null | undefined): OptionalColumn[] {
  if (!stored) return [];
  const wanted = new Set(stored.split(',').map((s) => s.trim()));
  return OPTIONAL_COLUMNS.map((c) => c.id).filter((id) => wanted.has(id) && KNOWN.has(id));
}

export function formatColumns(cols: readonly OptionalColumn[]): string {
  return OPTIONAL_COLUMNS.map((c) => c.id)
    .filter((id) => cols.includes(id))
    .join(',');
}

export function toggleColumn(cols: readonly OptionalColumn[], id: OptionalColumn): OptionalColumn[] {
  return cols.includes(id) ? cols.filter((c) => c !== id) : parseColumns(formatColumns([...cols, id]));
}

/** `UTC` for UTC-framed jobs, the IANA name for zoned ones, `local` for the daemon's local zone. */
export function tzLabel(job: Pick<ApiJob, 'utc' | 'timezone'>): string {
  if (job.timezone === 'UTC' || job.timezone === 'Etc/UTC') return 'UTC';
  if (job.timezone) return job.timezone;
  return job.utc ? 'UTC' : 'local';
}

/** Cluster policy, or null when the job runs without leader election. */
export function policyLabel(job: Pick<ApiJob, 'clusterPolicy'>): string | null {
  return job.clusterPolicy ?? null;
}

/** Success share of the finished runs in `history` (0..1), null without history. */
export function successRate(history: readonly ApiHistoryEntry[]): number | null {
  if (history.length === 0) return null;
  let ok = 0;
  for (const h of history) if (h.outcome === 'success') ok++;
  return ok / history.length;
}

export function formatRate(rate: number | null): string {
  return rate === null ? '—' : `${Math.round(rate * 100)}%`;
}

/** How a success rate reads: good from 99 %, bad under 80 %, a warning between ('' without runs). */
export function rateTone(rate: number | null): '' | 'good' | 'warn' | 'bad' {
  if (rate === null) return '';
  return rate >= 0.99 ? 'good' : rate < 0.8 ? 'bad' : 'warn';
}

const pad = (n: number): string => String(n).padStart(2, '0');

// Building a DateTimeFormat costs far more than using one, and every visible row asks each second.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string | undefined): Intl.DateTimeFormat {
  const key = zone ?? '';
  let f = formatters.get(key);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      year: 'numeric',
      month: 'short',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(key, f);
  }
  return f;
}

/**
 * A next-fire instant on the browser's wall clock: `HH:MM` (with `:SS` for second-level schedules) today,
 * prefixed with the short date on other days. `zone` is only for tests; the page uses the browser's zone.
 */
export function formatWallClock(t: number, now: number, seconds: boolean, zone?: string): string {
  const fmt = formatter(zone);
  const parts = (x: number): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const p of fmt.formatToParts(x)) out[p.type] = p.value;
    return out;
  };
  const a = parts(t);
  const b = parts(now);
  const clock = `${pad(Number(a.hour))}:${a.minute}${seconds ? `:${a.second}` : ''}`;
  const sameDay = a.year === b.year && a.month === b.month && a.day === b.day;
  return sameDay ? clock : `${a.day} ${a.month} ${clock}`;
}
