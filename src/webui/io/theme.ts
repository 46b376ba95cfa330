// Themes and the look preferences (spec 06 §9.2 "Settings + themes"), applied as attributes on <html> so the
// stylesheet does the rest: data-theme, data-cvd, data-density, data-motion and data-scale. Until the user picks a
// theme (stored as `cronstable.theme`) it is `standard`, light or dark after prefers-color-scheme.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import {
  CVD_MODES,
  type CvdMode,
  cycleTheme,
  DENSITIES,
  type Density,
  flipLightDark,
  MOTIONS,
  type Motion,
  resolveTheme,
  SCALES,
  type Scale,
  THEME_PREFS,
  type Theme,
  type ThemePref,
} from '../../dashboard/settings.ts';
import { usePref } from './hooks.ts';

const KEY = 'cronstable.theme';

function stored<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
  try {
    const v = localStorage.getItem(`cronstable.${key}`) as T | null;
    if (v !== null && allowed.includes(v)) return v;
  } catch {
    // storage disabled
  }
  return fallback;
}

function systemDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
}

/** Sets the <html> attributes before the first paint (called from the bundle's first line). */
export function applyInitialTheme(): void {
  const d = document.documentElement.dataset;
  d.theme = resolveTheme(stored('theme', THEME_PREFS, 'auto'), systemDark());
  d.cvd = stored('cvd', CVD_MODES, 'none');
  d.density = stored('density', DENSITIES, 'comfortable');
  d.motion = stored('motion', MOTIONS, 'system');
  d.scale = stored('scale', SCALES, '100');
}

/** The theme: [resolved theme, stored preference, set the preference]. */
export function useTheme(): [Theme, ThemePref, (pref: ThemePref) => void] {
  const [pref, setPrefState] = useState<ThemePref>(() => stored('theme', THEME_PREFS, 'auto'));
  const [systemIsDark, setSystemIsDark] = useState(systemDark);
  useEffect(() => {
    if (typeof matchMedia !== 'function') return;
    const mq = matchMedia('(prefers-color-scheme: dark)');
    const on = (): void => setSystemIsDark(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);
  const resolved = resolveTheme(pref, systemIsDark);
  useEffect(() => {
    document.documentElement.dataset.theme = resolved;
  }, [resolved]);
  const setPref = useCallback((next: ThemePref) => {
    // Picking what a new visitor gets on this system again means "follow the system".
    const keep: ThemePref = next === resolveTheme('auto', systemDark()) ? 'auto' : next;
    try {
      if (keep === 'auto') localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, keep);
    } catch {
      // storage disabled
    }
    document.documentElement.dataset.theme = resolveTheme(keep, systemDark());
    setPrefState(keep);
  }, []);
  return [resolved, pref, setPref];
}

/** `T` (light ⇄ dark) and `t` (next theme), stable across renders. */
export function useThemeKeys(
  theme: Theme,
  setPref: (pref: ThemePref) => void,
): { toggleTheme(): void; nextTheme(): void } {
  // Through a ref: a second key press can arrive before the keyboard effect re-subscribes.
  const themeRef = useRef(theme);
  themeRef.current = theme;
  const toggleTheme = useCallback(() => setPref(flipLightDark(themeRef.current)), [setPref]);
  const nextTheme = useCallback(() => setPref(cycleTheme(themeRef.current)), [setPref]);
  return { toggleTheme, nextTheme };
}

export interface Look {
  cvd: CvdMode;
  density: Density;
  motion: Motion;
  scale: Scale;
  setCvd(v: CvdMode): void;
  setDensity(v: Density): void;
  setMotion(v: Motion): void;
  setScale(v: Scale): void;
}

/** Colour-vision mode, density, motion and UI scale, persisted and mirrored onto <html>. */
export function useLook(): Look {
  const [cvd, setCvd] = usePref<CvdMode>('cvd', 'none', CVD_MODES);
  const [density, setDensity] = usePref<Density>('density', 'comfortable', DENSITIES);
  const [motion, setMotion] = usePref<Motion>('motion', 'system', MOTIONS);
  const [scale, setScale] = usePref<Scale>('scale', '100', SCALES);
  useEffect(() => {
    const d = document.documentElement.dataset;
    d.cvd = cvd;
    d.density = density;
    d.motion = motion;
    d.scale = scale;
  }, [cvd, density, motion, scale]);
  return { cvd, density, motion, scale, setCvd, setDensity, setMotion, setScale };
}
