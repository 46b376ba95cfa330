// The cron sandbox (spec 06 §9.2): validate any expression, describe it in plain English and preview its next
// fires in any zone with the bundled engine — the same parser and walker the daemon schedules with.
import {
  describeSchedule,
  previewExpression,
  REBOOT_DESCRIPTION,
  resolveFrame,
  UTC_FRAME,
} from '../schedule/index.ts';
import { errorText } from '../util/errors.ts';
import { toCivil } from './engine.ts';
import { capitalize, formatCivil } from './format.ts';

export const SANDBOX_COUNT = 12;

export interface SandboxFire {
  /** epoch ms */
  at: number;
  /** `YYYY-MM-DD HH:MM:SS` in the preview zone */
  civil: string;
  weekday: string;
}

export type SandboxResult =
  | { kind: 'empty' }
  | { kind: 'error'; error: string }
  | { kind: 'reboot'; description: string }
  | {
      kind: 'ok';
      normalized: string;
      resolved: string | null;
      description: string;
      hasSeconds: boolean;
      fires: SandboxFire[];
      /** the daemon's lint findings for it in that zone (hashed slot, never fires, uneven steps, DST…) */
      findings: { code: string; level: 'warning' | 'note'; message: string }[];
    };

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** `zone` is `UTC` or an IANA name; `seed` is the hash key `H` fields resolve with (a job's name). */
export function sandboxPreview(
  expr: string,
  zone: string,
  now: number,
  opts: { count?: number; seed?: string } = {},
): SandboxResult {
  let frame = UTC_FRAME;
  let knownZone = true;
  if (zone !== 'UTC') {
    try {
      frame = resolveFrame({ timezone: zone });
    } catch {
      knownZone = false;
    }
  }
  try {
    const p = previewExpression(expr, frame, now, {
      count: opts.count ?? SANDBOX_COUNT,
      ...(opts.seed === undefined ? {} : { seed: opts.seed }),
    });
    if (p.kind === 'empty') return p;
    if (p.kind === 'reboot') return { kind: 'reboot', description: capitalize(REBOOT_DESCRIPTION) };
    if (!knownZone) return { kind: 'error', error: `unknown timezone: ${zone}` };
    if (p.kind === 'error') return p;
    const sched = p.cron;
    const fires = p.fires.map((at) => {
      const civil = zone === 'UTC' ? at : toCivil(zone, at);
      return { at, civil: formatCivil(civil, true), weekday: WEEKDAYS[new Date(civil).getUTCDay()]! };
    });
    return {
      kind: 'ok',
      normalized: sched.source,
      resolved: sched.resolved !== sched.source ? sched.resolved : null,
      description: capitalize(describeSchedule(sched)),
      hasSeconds: sched.hasSeconds,
      fires,
      findings: p.findings,
    };
  } catch (err) {
    return { kind: 'error', error: errorText(err) };
  }
}

/** A few zones to pick from; any IANA name may be typed. */
export const SANDBOX_ZONES = [
  'UTC',
  'Europe/London',
  'Europe/Berlin',
  'America/New_York',
  'America/Los_Angeles',
  'Asia/Tokyo',
  'Australia/Sydney',
] as const;
