// Glyph sets (spec 08 §6.1): Unicode, or ASCII for terminals and locales that cannot draw it. ASCII mode maps
// borders, bars and arrows too, not only the status glyphs (the shared health table's two glyph sets).
import { STATUS_ASCII, STATUS_GLYPH } from '../../dashboard/health.ts';
import { SPARK_BLOCKS } from '../../dashboard/sparkline.ts';
import type { JobStatus } from '../../dashboard/status.ts';

export interface Glyphs {
  status: Record<JobStatus, string>;
  spark: readonly string[];
  h: string;
  v: string;
  tl: string;
  tr: string;
  bl: string;
  br: string;
  lt: string;
  rt: string;
  titleL: string;
  titleR: string;
  marker: string;
  /** a job marked for a bulk run / cancel */
  mark: string;
  logBar: string;
  dot: string;
  ellipsis: string;
  up: string;
  down: string;
  live: string;
  offline: string;
  search: string;
  cursor: string;
  secret: string;
}

export const UNICODE: Glyphs = {
  status: STATUS_GLYPH,
  spark: [...SPARK_BLOCKS],
  h: '─',
  v: '│',
  tl: '┌',
  tr: '┐',
  bl: '└',
  br: '┘',
  lt: '├',
  rt: '┤',
  titleL: '╴',
  titleR: '╶',
  marker: '▎',
  mark: '◆',
  logBar: '▏',
  dot: '·',
  ellipsis: '…',
  up: '↑',
  down: '↓',
  live: '●',
  offline: '◌',
  search: '⌕',
  cursor: '▌',
  secret: '•',
};

export const ASCII: Glyphs = {
  status: STATUS_ASCII,
  spark: [' ', '.', ':', '-', '=', '+', '*', '#'],
  h: '-',
  v: '|',
  tl: '+',
  tr: '+',
  bl: '+',
  br: '+',
  lt: '+',
  rt: '+',
  titleL: ' ',
  titleR: ' ',
  marker: '>',
  mark: '*',
  logBar: '|',
  dot: '.',
  ellipsis: '~',
  up: '^',
  down: 'v',
  live: 'o',
  offline: '-',
  search: '?',
  cursor: '_',
  secret: '*',
};

/** Whether the environment wants ASCII on its own: a non-UTF-8 locale or a terminal that cannot draw. */
export function asciiByDefault(env: NodeJS.ProcessEnv): boolean {
  if (['linux', 'vt100', 'vt220', 'dumb'].includes(env.TERM ?? '')) return true;
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG || '';
  if (locale === '') return false;
  return !/utf-?8/i.test(locale);
}
