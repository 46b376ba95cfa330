// The cron engine: parse, next/previous fire search in a frame, lints, descriptions (pure; no I/O, no clock).
export { describeSchedule } from './describe.ts';
export {
  DEFAULT_DST_POLICY,
  DST_REPEATED_VALUES,
  DST_SKIPPED_VALUES,
  DST_VALUES,
  type DstPolicy,
  dstPolicyOf,
  isDefaultDstPolicy,
  resolveCivil,
} from './dst.ts';
export { ScheduleError } from './errors.ts';
export type { FieldSet } from './fields.ts';
export { MinHeap } from './heap.ts';
export { lintSchedule, type ScheduleFinding } from './lint.ts';
export {
  type CronSchedule,
  isReboot,
  looksLikeCrontabLine,
  parseCron,
  renderScheduleObject,
  semanticKey,
} from './parse.ts';
export { type ExpressionPreview, previewExpression, REBOOT_DESCRIPTION } from './preview.ts';
export {
  isSupportedInstant,
  MAX_INSTANT_MS,
  MIN_INSTANT_MS,
  matchesInstant,
  nextFire,
  type OccurrenceQuery,
  occurrences,
  occurrencesInto,
  prevFire,
} from './search.ts';
export {
  civilInFrame,
  type Frame,
  frameName,
  frameZone,
  isKnownTimezone,
  resolveFrame,
  UTC_FRAME,
} from './zone.ts';

import { clearParseCache } from './parse.ts';
import { clearZoneCache } from './zone.ts';

/** Drops the parse memo and the zone offset caches (for cold-start measurements). */
export function clearScheduleCaches(): void {
  clearParseCache();
  clearZoneCache();
}
