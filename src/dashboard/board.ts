// What the job board's time cells say (spec 06 §9.2 table, spec 08 §4.3): the next fire, the last run and its
// duration, as text plus a kind the face styles. The countdown rolls forward with the clock between polls.
import { compileJob, nextFireOf } from './engine.ts';
import { formatAge, formatCountdown, formatDuration } from './format.ts';
import type { Row } from './table.ts';

export type NextKind = 'off' | 'running' | 'paused' | 'reboot' | 'never' | 'none' | 'due' | 'countdown';

export interface NextCell {
  kind: NextKind;
  /** `—`, `@reboot`, `never`, `due`, `in 4m`, `in 1m 05s` */
  text: string;
  /** a 7-field (seconds) schedule: the countdown keeps second resolution */
  seconds: boolean;
}

/** The Next cell at `now`, given the row's next fire (`nextAt`, possibly rolled forward: `rollNextFire`). */
export function nextCell(row: Row, nextAt: number | null, now: number): NextCell {
  const j = row.job;
  if (!j.enabled) return { kind: 'off', text: '—', seconds: false };
  if (j.running) return { kind: 'running', text: '—', seconds: false };
  // A paused job's slots are skipped until the pause ends (spec 10 §1.5: Next shows `—`).
  if (j.paused) return { kind: 'paused', text: '—', seconds: false };
  const c = compileJob(j);
  if (c.reboot) return { kind: 'reboot', text: '@reboot', seconds: false };
  if (j.never_fires) return { kind: 'never', text: 'never', seconds: false };
  if (nextAt === null) return { kind: 'none', text: '—', seconds: false };
  const text = formatCountdown(nextAt - now, c.hasSeconds);
  return text === 'due'
    ? { kind: 'due', text, seconds: c.hasSeconds }
    : { kind: 'countdown', text: `in ${text}`, seconds: c.hasSeconds };
}

export interface LastCell {
  /** `never`, or the finish's age (`4m ago`) */
  text: string;
  /** exit code of the last run, when it has one */
  exit: number | null;
  /** `finished_at` as the API sent it, for a tooltip */
  finishedAt: string | null;
}

export function lastCell(row: Row, now: number): LastCell {
  const last = row.job.last_run;
  if (last === null || row.lastAt === null) return { text: 'never', exit: null, finishedAt: null };
  return { text: formatAge(now - row.lastAt), exit: last.exit_code ?? null, finishedAt: last.finished_at };
}

/** The Took cell: the last run's duration, `—` without one. */
export function tookText(row: Row): string {
  const last = row.job.last_run;
  return last ? formatDuration(last.duration) : '—';
}

/**
 * The next fire at `t`: the daemon's answer (`row.nextAt`) until it passes, then the engine's next instant,
 * remembered in `cache` (per job name) until that passes too. Clear the cache on every new `/jobs` answer.
 */
export function rollNextFire(row: Row, t: number, cache: Map<string, number | null>): number | null {
  const base = row.nextAt;
  if (base === null || base > t || !row.job.enabled || row.job.running) return base;
  const cached = cache.get(row.job.name);
  if (cached !== undefined && (cached === null || cached > t)) return cached;
  const next = nextFireOf(compileJob(row.job), t);
  cache.set(row.job.name, next);
  return next;
}
