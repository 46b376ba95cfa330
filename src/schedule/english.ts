// Small English helpers shared by messages, lints and descriptions.

export const DAY_LONG = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const MONTH_LONG = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Two-digit zero padding. */
export const pad2 = (n: number): string => (n < 10 ? '0' : '') + n;

/** "3 minutes", "1 minute". */
export const plural = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** "a", "a and b", "a, b and c" (or another final word). */
export function joinAnd(parts: readonly string[], word = 'and'): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} ${word} ${parts[parts.length - 1]}`;
}
