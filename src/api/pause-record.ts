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
