// `/schedule/why` (spec 06 §5.11): why a job did or did not fire at an instant, field by field in the
// job's own frame, with its neighbouring fires under its DST policy.
import { hasBit60 } from '../schedule/bits.ts';
import { matchingDays } from '../schedule/days.ts';
import { DAY_NAMES, Kind, MONTH_NAMES } from '../schedule/fields.ts';
import {
  describeSchedule,
  matchesInstant,
  nextFire,
  prevFire,
  REBOOT_DESCRIPTION,
} from '../schedule/index.ts';
import { civilInFrame } from '../schedule/zone.ts';
import { type ScheduleEntry, timezoneLabel } from './analysis.ts';
import { isoInFrame, isoUtc } from './timefmt.ts';

export function why(entry: ScheduleEntry, at: number, notes: unknown[]): Record<string, unknown> {
  const frame = entry.frame;
  const base: Record<string, unknown> = {
    job: entry.name,
    enabled: entry.enabled,
    timezone: timezoneLabel(frame),
    at: isoUtc(at),
    at_in_zone: isoInFrame(at, frame),
  };
  const cron = entry.cron;
  if (entry.reboot || cron === null) {
    return {
      ...base,
      expression: '@reboot',
      reboot: true,
      description: REBOOT_DESCRIPTION,
      matches: false,
      checks: [],
      failed: [],
      notes,
      previous_fire: null,
      next_fire: null,
    };
  }
  const d = new Date(civilInFrame(frame, at));
  const y = d.getUTCFullYear();
  const mo = d.getUTCMonth() + 1;
  const day = d.getUTCDate();
  const wd = d.getUTCDay();
  const dayRule = (matchingDays(cron, y, mo) & (1 << day)) !== 0;
  const texts = cron.fieldTexts;
  const allowed = (k: Kind, fallback: string) => texts[k] ?? fallback;
  const checks: { field: string; value: number; label: string; allowed: string; matched: boolean }[] = [];
  if (cron.hasSeconds)
    checks.push({
      field: 'second',
      value: d.getUTCSeconds(),
      label: String(d.getUTCSeconds()).padStart(2, '0'),
      allowed: allowed(Kind.Second, '0'),
      matched: hasBit60(cron.secLo, cron.secHi, d.getUTCSeconds()),
    });
  const mi = d.getUTCMinutes();
  const h = d.getUTCHours();
  checks.push(
    {
      field: 'minute',
      value: mi,
      label: String(mi).padStart(2, '0'),
      allowed: allowed(Kind.Minute, '*'),
      matched: hasBit60(cron.minLo, cron.minHi, mi),
    },
    {
      field: 'hour',
      value: h,
      label: String(h).padStart(2, '0'),
      allowed: allowed(Kind.Hour, '*'),
      matched: (cron.hours & (1 << h)) !== 0,
    },
    {
      field: 'day-of-month',
      value: day,
      label: String(day),
      allowed: allowed(Kind.DayOfMonth, '*'),
      matched: (cron.domPlain & (1 << day)) !== 0 || (cron.domForms !== null && dayRule),
    },
    {
      field: 'month',
      value: mo,
      label: MONTH_NAMES[mo - 1]!,
      allowed: allowed(Kind.Month, '*'),
      matched: (cron.months & (1 << mo)) !== 0,
    },
    {
      field: 'day-of-week',
      value: wd,
      label: DAY_NAMES[wd]!,
      allowed: allowed(Kind.DayOfWeek, '*'),
      matched: (cron.dowPlain & (1 << wd)) !== 0 || (cron.dowForms !== null && dayRule),
    },
  );
  if (cron.years !== null)
    checks.push({
      field: 'year',
      value: y,
      label: String(y),
      allowed: allowed(Kind.Year, '*'),
      matched: y >= 1970 && y <= 2099 && cron.years[y - 1970] === 1,
    });
  const matches = matchesInstant(cron, frame, at);
  // The neighbouring fires under the job's DST policy (the default policy is the plain search).
  const prev = prevFire(cron, frame, at, entry.dst);
  const next = nextFire(cron, frame, at, entry.dst);
  const body: Record<string, unknown> = {
    ...base,
    expression: cron.source,
    reboot: false,
    description: describeSchedule(cron),
    matches,
    checks,
    failed: checks.filter((c) => !c.matched).map((c) => c.field),
    notes,
    previous_fire: prev === null ? null : isoInFrame(prev, frame),
    next_fire: next === null ? null : isoInFrame(next, frame),
  };
  if (cron.resolved !== cron.source) body.resolved = cron.resolved;
  return body;
}
