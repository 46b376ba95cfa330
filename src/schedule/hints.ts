// Dialect hints appended to engine errors when the raw fields look like another cron dialect (spec 01 §5.4).
import { DAY_LONG } from './english.ts';
import { Kind } from './fields.ts';

const W_ITEM = /^(?:l|\d+)w$/;
const QUARTZ_LAST = /^(\d+)l$/;

/** The hint for a failed expression's raw fields (in column order with their kinds), or null. */
export function dialectHint(tokens: readonly string[], kinds: readonly Kind[]): string | null {
  const low = tokens.map((t) => t.toLowerCase());
  if (low.length === 6 && low.includes('?')) {
    return "6 fields are read as 'minute hour day-of-month month day-of-week YEAR'; for a seconds-first (Quartz) expression append ' *' to use the 7-field layout 'second minute hour day-of-month month day-of-week year'";
  }
  for (let i = 0; i < low.length; i++) {
    const kind = kinds[i]!;
    for (const item of low[i]!.split(',')) {
      if (kind !== Kind.DayOfWeek && item.includes('#')) {
        return "'#' is only valid in the day-of-week field, e.g. 'fri#3' for the third Friday";
      }
      if (kind !== Kind.DayOfMonth && W_ITEM.test(item)) {
        return "'W' is only valid in the day-of-month field, e.g. '15W' or 'LW'";
      }
      const q = kind === Kind.DayOfWeek ? QUARTZ_LAST.exec(item) : null;
      if (q !== null) {
        const day = DAY_LONG[Number(q[1]) % 7];
        const what = day === undefined ? 'the last such weekday' : `the last ${day}`;
        return `Quartz '${q[1]}L' (${what} of the month) is spelled 'L${q[1]}' here`;
      }
    }
  }
  for (let i = 0; i < low.length; i++) {
    const kind = kinds[i]!;
    if (low[i] === '?' && kind !== Kind.DayOfMonth && kind !== Kind.DayOfWeek) {
      return "'?' is only accepted standing alone in the day-of-month or day-of-week field";
    }
  }
  return null;
}
