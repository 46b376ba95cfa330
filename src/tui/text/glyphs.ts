// Glyph sets (spec 08 §6.1): Unicode, or ASCII for terminals and locales that cannot draw it. ASCII mode maps
// borders, bars and arrows too, not only the status glyphs.
import type { JobStatus } from '../../dashboard/status.ts';
import type { Role } from './theme.ts';

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
  status: {
    disabled: '◌',
    running: '▶',
    failed: '✕',
    cancelled: '⊘',
    unknown: '◍',
    ok: '●',
    pending: '◔',
  },
  spark: ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'],
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
  status: { disabled: '-', running: '>', failed: 'x', cancelled: '/', unknown: '?', ok: 'o', pending: '.' },
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

/** The colour role of each status (§3.1). */
export const STATUS_ROLE: Record<JobStatus, Role> = {
  disabled: 'off',
  running: 'run',
  failed: 'fail',
  cancelled: 'off',
  unknown: 'pending',
  ok: 'ok',
  pending: 'pending',
};
