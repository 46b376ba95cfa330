// A job's health as both dashboards show it (spec 08 §3.1): the derived status with its label, glyph (and an
// ASCII stand-in for terminals without the symbols), colour tone, the status segment it belongs to, and its
// places in the table's status sort and on the wallboard. One table, so a badge, a filter chip, a sort, the web
// page and the terminal can never disagree about a job.
import { type JobStatus, jobStatus, STATUS_LABEL, STATUS_RANK, type StatusInput } from './status.ts';
import type { Outcome } from './types.ts';
import { TV_RANK } from './wallboard.ts';

/** The toolbar's status segments; `all` shows every job. */
export type Segment = 'all' | 'ok' | 'fail' | 'run' | 'off';
export const SEGMENTS: readonly Segment[] = ['all', 'ok', 'fail', 'run', 'off'];

/** Colour roles: the web maps them to CSS variables, the terminal to its theme's SGR colours. */
export type Tone = 'ok' | 'fail' | 'run' | 'warn' | 'pending' | 'off';

/** A distinct shape per status, so a status reads without colour (NO_COLOR, colour-blind viewers). */
export const STATUS_GLYPH: Record<JobStatus, string> = {
  running: '▶',
  failed: '✕',
  pending: '◔',
  skipped: '◇',
  unknown: '◍',
  cancelled: '⊘',
  ok: '●',
  paused: '⏸',
  disabled: '◌',
};

/** For terminals that cannot draw the glyphs (`--ascii`). */
export const STATUS_ASCII: Record<JobStatus, string> = {
  running: '>',
  failed: 'x',
  pending: '.',
  skipped: '~',
  unknown: '?',
  cancelled: '/',
  ok: 'o',
  paused: 'p',
  disabled: '-',
};

export const STATUS_TONE: Record<JobStatus, Tone> = {
  running: 'run',
  failed: 'fail',
  pending: 'pending',
  skipped: 'pending',
  unknown: 'pending',
  cancelled: 'off',
  ok: 'ok',
  paused: 'warn',
  disabled: 'off',
};

/** The status a single run's outcome reads as (a history row, a timeline entry). */
export const OUTCOME_STATUS: Record<Outcome, JobStatus> = {
  success: 'ok',
  failure: 'failed',
  cancelled: 'cancelled',
  unknown: 'unknown',
  skipped: 'skipped',
};

/**
 * The one segment (besides `all`) each status shows under; `null`: under `all` only (spec 08 §3.1). A
 * cancelled or interrupted run is neither a success nor a failure, and a job that never ran has no outcome.
 */
export const STATUS_SEGMENT: Record<JobStatus, Exclude<Segment, 'all'> | null> = {
  running: 'run',
  failed: 'fail',
  unknown: null,
  cancelled: null,
  pending: null,
  skipped: null,
  paused: null,
  ok: 'ok',
  disabled: 'off',
};

export interface Health {
  status: JobStatus;
  label: string;
  glyph: string;
  ascii: string;
  tone: Tone;
  segment: Exclude<Segment, 'all'> | null;
  /** place in the table's status sort (ascending: what needs eyes first) */
  sortRank: number;
  /** place on the wallboard (worst first) */
  tvRank: number;
}

export function healthOf(status: JobStatus): Health {
  return {
    status,
    label: STATUS_LABEL[status],
    glyph: STATUS_GLYPH[status],
    ascii: STATUS_ASCII[status],
    tone: STATUS_TONE[status],
    segment: STATUS_SEGMENT[status],
    sortRank: STATUS_RANK[status],
    tvRank: TV_RANK[status],
  };
}

export function health(job: StatusInput): Health {
  return healthOf(jobStatus(job));
}

/** Whether a job of this status shows under `segment`. */
export function inSegment(status: JobStatus, segment: Segment): boolean {
  return segment === 'all' || STATUS_SEGMENT[status] === segment;
}

/** The next segment in the toolbar's cycle (`all → ok → fail → run → off → all`). */
export function nextSegment(segment: Segment): Segment {
  return SEGMENTS[(SEGMENTS.indexOf(segment) + 1) % SEGMENTS.length]!;
}
