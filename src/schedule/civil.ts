// Proleptic Gregorian calendar arithmetic on whole days since 1970-01-01 (no Date objects).
import { pad2 } from './english.ts';

export const DAY_S = 86_400;
export const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a civil date (month 1-12). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  if (yy >= 0) {
    // Integer fast path (every year the engine searches).
    const yoe = yy % 400;
    const doy = (((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) | 0) + d - 1;
    return ((yy / 400) | 0) * 146_097 + yoe * 365 + ((yoe / 4) | 0) - ((yoe / 100) | 0) + doy - 719_468;
  }
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Civil date of a day number, packed as `y * 512 + m * 32 + d` (see the unpack helpers). */
export function civilFromDays(days: number): number {
  const z = days + 719_468;
  if (z >= 0 && z < 0x7fff_ffff) {
    // Integer fast path.
    const era = (z / 146_097) | 0;
    const doe = z - era * 146_097;
    const yoe = ((doe - ((doe / 1460) | 0) + ((doe / 36_524) | 0) - ((doe / 146_096) | 0)) / 365) | 0;
    const doy = doe - (365 * yoe + ((yoe / 4) | 0) - ((yoe / 100) | 0));
    const mp = ((5 * doy + 2) / 153) | 0;
    const d = doy - (((153 * mp + 2) / 5) | 0) + 1;
    const m = mp < 10 ? mp + 3 : mp - 9;
    return (yoe + era * 400 + (m <= 2 ? 1 : 0)) * 512 + m * 32 + d;
  }
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return y * 512 + m * 32 + d;
}

export const packedYear = (p: number): number => Math.floor(p / 512);
export const packedMonth = (p: number): number => (p >> 5) & 15;
export const packedDay = (p: number): number => p & 31;

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const MONTH_DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeapYear(y) ? 29 : 28) : MONTH_DAYS[m]!;
}

/** Weekday (0 = Sunday) of a day number; 1970-01-01 was a Thursday. */
export function weekdayOfDays(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

/** `YYYY-MM-DD` of a day number. */
export function formatCivilDate(days: number): string {
  const p = civilFromDays(days);
  return `${packedYear(p)}-${pad2(packedMonth(p))}-${pad2(packedDay(p))}`;
}

/** `HH:MM` of a second-of-day. */
export function formatClock(sod: number): string {
  return `${pad2(Math.floor(sod / 3600))}:${pad2(Math.floor(sod / 60) % 60)}`;
}

/** `YYYY-MM-DDTHH:MM:SSZ` of an epoch instant (milliseconds dropped). */
export function formatUtcInstant(ms: number): string {
  const s = Math.floor(ms / 1000);
  const days = Math.floor(s / DAY_S);
  const sod = s - days * DAY_S;
  return `${formatCivilDate(days)}T${formatClock(sod)}:${pad2(sod % 60)}Z`;
}
