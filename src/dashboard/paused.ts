// How both dashboards show a runtime pause (spec 10 §1.5): the chip beside a paused job, the TUI's Next
// cell, the toasts after a pause or resume, and the body the dashboards send (empty: one hour).
import type { PauseRecord } from '../api/wire/jobs.schema.ts';
import { parseIso } from './format.ts';

export type { PauseRecord as ApiPause };

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** `HH:MM` of an instant in UTC (the TUI's and the chip's pause expiry). */
export function utcHourMinute(ms: number): string {
  const d = new Date(ms);
  return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
}

/** The chip beside a paused job: `until 14:05 UTC · maint` (the note only when there is one). */
export function pausedChip(p: PauseRecord): string {
  const until = parseIso(p.until);
  const when = until === null ? p.until : `until ${utcHourMinute(until)} UTC`;
  return p.note ? `${when} · ${p.note}` : when;
}

/** The chip's tooltip: who paused it, through which surface, and the full expiry. */
export function pausedTitle(p: PauseRecord): string {
  return `Paused by ${p.by} (${p.channel}) until ${p.until}${p.note ? `: ${p.note}` : ''}`;
}

/** The TUI's Next cell of a paused job: `⏸ til HH:MM` (UTC), or `p til HH:MM` with the ASCII glyph. */
export function pausedNext(p: PauseRecord, glyph: string): string {
  const until = parseIso(p.until);
  return `${glyph} til ${until === null ? '?' : utcHourMinute(until)}`;
}

/** Which action the pause toggle takes on a row: resume a paused job, else pause it. */
export function pauseAction(job: { paused?: PauseRecord | null }): 'pause' | 'resume' {
  return job.paused ? 'resume' : 'pause';
}

/** The toast after a pause or resume answered `status` (spec 10 §1.5's texts; 401 asks for a token). */
export function pauseToast(
  action: 'pause' | 'resume',
  name: string,
  status: number,
): { text: string; ok: boolean; needsToken: boolean } {
  if (status >= 200 && status < 300)
    return {
      text: action === 'pause' ? `⏸ paused ${name}` : `⏵ resumed ${name}`,
      ok: true,
      needsToken: false,
    };
  if (status === 404) return { text: `no such job: ${name}`, ok: false, needsToken: false };
  return { text: `${action} ${name}: HTTP ${status}`, ok: false, needsToken: status === 401 };
}
