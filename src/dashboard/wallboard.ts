// The wallboard / TV view (spec 06 §9.2): tiles worst first and when the idle screensaver takes over (when the
// data on screen is too old to trust: connection.ts staleAge). Pure; the clock is passed in.
import { formatDuration, parseIso } from './format.ts';
import { pausedChip } from './paused.ts';
import { type JobStatus, jobStatus, ranked, STATUS_LABEL, STATUS_ORDER } from './status.ts';
import type { ApiJob } from './types.ts';

/**
 * Worst first (spec 08 §3.1's wallboard order): what a person across the room must see is a failure, then
 * what is in flight.
 */
export const TV_RANK = ranked(['failed', ...STATUS_ORDER.filter((s) => s !== 'failed')]);

export interface Tile {
  name: string;
  status: JobStatus;
  label: string;
  /** exit code / reason of a failure, duration of a success */
  detail: string;
  finishedAt: number | null;
}

export function tvTiles(jobs: readonly ApiJob[]): Tile[] {
  const tiles = jobs.map((j): Tile => {
    const status = jobStatus(j);
    const r = j.last_run;
    let detail = '';
    if (status === 'running') detail = 'running now';
    else if (r && (status === 'failed' || status === 'unknown' || status === 'cancelled')) {
      detail = r.exit_code !== null ? `exit ${r.exit_code}` : (r.fail_reason ?? r.outcome);
    } else if (r && r.duration !== null) detail = `took ${formatDuration(r.duration)}`;
    else if (status === 'pending') detail = 'no run yet';
    else if (status === 'paused' && j.paused) detail = pausedChip(j.paused);
    return {
      name: j.name,
      status,
      label: STATUS_LABEL[status],
      detail,
      finishedAt: parseIso(r?.finished_at),
    };
  });
  // Within a rank by name (code-point order), never by the latest finish: a tile must not move on a screen
  // across the room each time a job finishes again.
  return tiles.sort(
    (a, b) => TV_RANK[a.status] - TV_RANK[b.status] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

/** Tile counts per status for the wallboard's headline. */
export function tileCounts(tiles: readonly Tile[]): Record<JobStatus, number> {
  const out: Record<JobStatus, number> = {
    failed: 0,
    unknown: 0,
    running: 0,
    cancelled: 0,
    pending: 0,
    skipped: 0,
    ok: 0,
    paused: 0,
    disabled: 0,
  };
  for (const t of tiles) out[t.status]++;
  return out;
}

export const ZEN_CHOICES = ['off', '30', '60', '300'] as const;
export type ZenChoice = (typeof ZEN_CHOICES)[number];
export const DEFAULT_ZEN: ZenChoice = '30';

/** Whether the screensaver shows: idle for at least the chosen time ('off' never). */
export function zenDue(now: number, lastActivity: number, choice: ZenChoice): boolean {
  return choice !== 'off' && now - lastActivity >= Number(choice) * 1000;
}
