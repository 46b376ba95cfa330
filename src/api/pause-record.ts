// A pause as every surface shows it (spec 10 §1.1): instants in ISO-8601 UTC with microseconds.
import type { Pause, PauseChannel } from '../scheduler/pauses.ts';
import { isoUtc } from './timefmt.ts';

export interface PauseRecord {
  since: string;
  until: string;
  note: string;
  by: string;
  channel: PauseChannel;
}

export function pauseRecord(p: Pause): PauseRecord {
  return { since: isoUtc(p.sinceMs), until: isoUtc(p.untilMs), note: p.note, by: p.by, channel: p.channel };
}

/** The `/schedule/why` note of a paused job (spec 10 §1.5); `matches` stays as if unpaused. */
export function pausedNote(p: Pause): { code: 'paused'; level: 'note'; message: string } {
  const note = p.note ? `: ${p.note}` : '';
  return {
    code: 'paused',
    level: 'note',
    message: `job is paused until ${isoUtc(p.untilMs)} (by ${p.by})${note}`,
  };
}
