// Light / dark theme: follows prefers-color-scheme until the user picks one (stored as `cronstable.theme`).
import { useCallback, useEffect, useState } from 'preact/hooks';

export type ThemePref = 'auto' | 'light' | 'dark';
const KEY = 'cronstable.theme';

function storedPref(): ThemePref {
  try {
    const v = localStorage.getItem(KEY);
    if (v === 'light' || v === 'dark') return v;
  } catch {
    // storage disabled
  }
  return 'auto';
}

function systemDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
}

function resolve(pref: ThemePref): 'light' | 'dark' {
  return pref === 'auto' ? (systemDark() ? 'dark' : 'light') : pref;
}

/** Sets `data-theme` on <html> before the first paint (called from the bundle's first line). */
export function applyInitialTheme(): void {
  document.documentElement.dataset.theme = resolve(storedPref());
}

export function useTheme(): ['light' | 'dark', () => void] {
  const [pref, setPref] = useState<ThemePref>(storedPref);
  const [systemIsDark, setSystemIsDark] = useState(systemDark);
  useEffect(() => {
    if (typeof matchMedia !== 'function') return;
    const mq = matchMedia('(prefers-color-scheme: dark)');
    const on = (): void => setSystemIsDark(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);
  const resolved: 'light' | 'dark' = pref === 'auto' ? (systemIsDark ? 'dark' : 'light') : pref;
  useEffect(() => {
    document.documentElement.dataset.theme = resolved;
  }, [resolved]);
  const toggle = useCallback(() => {
    const next: ThemePref = resolved === 'dark' ? 'light' : 'dark';
    // Picking the system's own scheme again means "follow the system".
    const stored: ThemePref = next === (systemDark() ? 'dark' : 'light') ? 'auto' : next;
    try {
      if (stored === 'auto') localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, stored);
    } catch {
      // storage disabled
    }
    document.documentElement.dataset.theme = next;
    setPref(stored);
  }, [resolved]);
  return [resolved, toggle];
}
