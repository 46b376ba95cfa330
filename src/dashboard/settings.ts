// Dashboard preferences (spec 06 §9.2 "Settings + themes"): the allowed values of each, the theme cycle and the
// new-failure detector behind desktop notifications. Pure; persistence lives in src/webui/io/hooks.ts (usePref).
import type { ApiJob } from './types.ts';

/** In picker and `t` order: `standard` (the default, spec 10 §5.3) first, each theme before its light twin. */
export const THEMES = ['standard', 'standard-light', 'light', 'dark', 'hc-light', 'hc-dark'] as const;
export type Theme = (typeof THEMES)[number];
/** `auto` (what a new visitor gets) is `standard`, or `standard-light` on a system that prefers light. */
export type ThemePref = 'auto' | Theme;
export const THEME_PREFS: readonly ThemePref[] = ['auto', ...THEMES];

export const THEME_LABEL: Record<ThemePref, string> = {
  auto: 'standard, following the system (light / dark)',
  standard: 'standard',
  'standard-light': 'standard light',
  light: 'light',
  dark: 'dark',
  'hc-light': 'high-contrast light',
  'hc-dark': 'high-contrast dark',
};

export const CVD_MODES = ['none', 'red-green', 'blue-yellow'] as const;
export type CvdMode = (typeof CVD_MODES)[number];
export const CVD_LABEL: Record<CvdMode, string> = {
  none: 'standard status colours',
  'red-green': 'red-green safe (blue / orange)',
  'blue-yellow': 'blue-yellow safe (teal / red)',
};

export const DENSITIES = ['comfortable', 'compact'] as const;
export type Density = (typeof DENSITIES)[number];

export const SCALES = ['100', '110', '125', '140'] as const;
export type Scale = (typeof SCALES)[number];

export const MOTIONS = ['system', 'reduce'] as const;
export type Motion = (typeof MOTIONS)[number];

/** The refresh interval in seconds, or no polling at all. */
export const REFRESH_CHOICES = ['1', '2', '3', '5', '10', 'paused'] as const;
export type RefreshChoice = (typeof REFRESH_CHOICES)[number];

export const ON_OFF = ['off', 'on'] as const;
export type OnOff = (typeof ON_OFF)[number];

/** Table row height in CSS pixels per density (the virtualised table needs it exactly). */
export const ROW_HEIGHTS: Record<Density, number> = { comfortable: 58, compact: 40 };

export function isDark(theme: Theme): boolean {
  return theme === 'standard' || theme === 'dark' || theme === 'hc-dark';
}

/** `t`: the next theme in the cycle. */
export function cycleTheme(theme: Theme): Theme {
  return THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length]!;
}

/** `T` and the header button: the same contrast level, the other brightness. */
export function flipLightDark(theme: Theme): Theme {
  switch (theme) {
    case 'standard':
      return 'standard-light';
    case 'standard-light':
      return 'standard';
    case 'light':
      return 'dark';
    case 'dark':
      return 'light';
    case 'hc-light':
      return 'hc-dark';
    case 'hc-dark':
      return 'hc-light';
  }
}

export function resolveTheme(pref: ThemePref, systemDark: boolean): Theme {
  return pref === 'auto' ? (systemDark ? 'standard' : 'standard-light') : pref;
}

/**
 * Jobs whose latest run is a failure that was not in the previous answer: a job that just failed, or failed
 * again (a new finished_at). The first answer after load reports nothing (those failures are old news).
 */
export function newFailures(prev: readonly ApiJob[] | null, next: readonly ApiJob[]): ApiJob[] {
  if (prev === null) return [];
  const before = new Map<string, string | null>();
  for (const j of prev) before.set(j.name, j.last_run?.finished_at ?? null);
  return next.filter((j) => {
    const last = j.last_run;
    if (last === null || last.outcome !== 'failure') return false;
    if (!before.has(j.name)) return false;
    return before.get(j.name) !== last.finished_at;
  });
}

/** One notification for the batch: a single job names it, several name the first few. */
export function failureNotice(failed: readonly ApiJob[]): { title: string; body: string } | null {
  if (failed.length === 0) return null;
  if (failed.length === 1) {
    const j = failed[0]!;
    const r = j.last_run!;
    const exit = r.exit_code === null ? '' : `exit ${r.exit_code}`;
    return {
      title: `cronstable: ${j.name} failed`,
      body: [exit, r.fail_reason && r.fail_reason !== `exit code ${r.exit_code}` ? r.fail_reason : '']
        .filter(Boolean)
        .join(' · '),
    };
  }
  const names = failed.slice(0, 4).map((j) => j.name);
  const more = failed.length > 4 ? ` and ${failed.length - 4} more` : '';
  return { title: `cronstable: ${failed.length} jobs failed`, body: `${names.join(', ')}${more}` };
}
