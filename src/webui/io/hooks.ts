// Small shared hooks: a second-aligned clock, a polling loop, hash-change listening, the URL-hash route (its grammar: src/dashboard/route.ts),
// localStorage-backed preferences and the clipboard.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { formatRoute, parseRoute, type Route } from '../../dashboard/route.ts';

/** Whether the tab is hidden (spec 10 §5.2), following `visibilitychange`. */
export function usePageHidden(): boolean {
  const [hidden, setHidden] = useState(() => document.hidden);
  useEffect(() => {
    const on = (): void => setHidden(document.hidden);
    document.addEventListener('visibilitychange', on);
    return () => document.removeEventListener('visibilitychange', on);
  }, []);
  return hidden;
}

/**
 * Current time, re-rendering just after every whole second (countdowns and ages stay in step). In a hidden tab
 * the tick does nothing (spec 10 §5.2); the tab showing again ticks at once.
 */
export function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    let timer = 0;
    const tick = (): void => {
      const t = Date.now();
      if (!document.hidden) setNow(t);
      timer = window.setTimeout(tick, 1000 - (t % 1000) + 5);
    };
    const onShow = (): void => {
      if (!document.hidden) setNow(Date.now());
    };
    timer = window.setTimeout(tick, 1000 - (Date.now() % 1000) + 5);
    document.addEventListener('visibilitychange', onShow);
    return () => {
      window.clearTimeout(timer);
      document.removeEventListener('visibilitychange', onShow);
    };
  }, []);
  return now;
}

/**
 * Runs `tick` at once and again `intervalMs` after each one settles (null: once; a function is asked before each
 * wait, so the period can change without restarting the loop), until a dependency changes or
 * the component unmounts. `live()` turns false at that moment: a tick checks it after each await before it sets
 * state; answering 'pause' stops the loop until a dependency changes, a number sets the next wait (ms). A tick
 * handles its own errors (each view keeps its last answer its own way).
 */
export function usePolling(
  tick: (live: () => boolean) => Promise<unknown>,
  intervalMs: number | null | (() => number | null),
  deps: readonly unknown[],
): void {
  useEffect(() => {
    let stopped = false;
    let timer = 0;
    const live = (): boolean => !stopped;
    const run = async (): Promise<void> => {
      const next = await tick(live).catch(() => undefined);
      const wait =
        typeof next === 'number' ? next : typeof intervalMs === 'function' ? intervalMs() : intervalMs;
      if (!stopped && next !== 'pause' && wait !== null) timer = window.setTimeout(run, wait);
    };
    void run();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, deps);
}

/**
 * The scroll handler of a log view: reaching the bottom (within 24 px) turns following on, scrolling up turns it
 * off (a scroll to the very top by a shrinking view does not).
 */
export function followOnScroll(follow: boolean, setFollow: (on: boolean) => void): (e: Event) => void {
  return (e) => {
    const el = e.currentTarget as HTMLElement;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
    if (follow !== atBottom && (atBottom || el.scrollTop > 0)) setFollow(atBottom);
  };
}

/** Calls `fn` on every hash change and history step (Back / Forward). */
export function useHashChange(fn: () => void): void {
  const current = useRef(fn);
  current.current = fn;
  useEffect(() => {
    const onHash = (): void => current.current();
    window.addEventListener('hashchange', onHash);
    window.addEventListener('popstate', onHash);
    return () => {
      window.removeEventListener('hashchange', onHash);
      window.removeEventListener('popstate', onHash);
    };
  }, []);
}

/**
 * The route in the URL hash; links can point at a job's drawer. Opening or closing the drawer and switching the
 * view add a history entry (Back closes the drawer); switching tabs or jobs inside an open drawer replaces it.
 */
export function useRoute(): [Route, (next: Route) => void] {
  const [route, setRouteState] = useState(() => parseRoute(location.hash));
  const current = useRef(route);
  current.current = route;
  useHashChange(() => setRouteState(parseRoute(location.hash)));
  const setRoute = useCallback((next: Route) => {
    const prev = current.current;
    const hash = formatRoute(next);
    if (hash !== location.hash && !(hash === '' && location.hash === '')) {
      const url = hash === '' ? location.pathname + location.search : hash;
      const replace = prev.view === next.view && prev.drawer !== null && next.drawer !== null;
      if (replace) history.replaceState(null, '', url);
      else history.pushState(null, '', url);
    }
    current.current = next;
    setRouteState(next);
  }, []);
  return [route, setRoute];
}

const PREF_PREFIX = 'cronstable.';

/** A preference persisted in localStorage under `cronstable.<key>`. */
export function usePref<T extends string>(
  key: string,
  initial: T,
  allowed?: readonly T[],
): [T, (v: T) => void] {
  const [value, setValue] = useState<T>(() => {
    try {
      const stored = localStorage.getItem(PREF_PREFIX + key) as T | null;
      if (stored !== null && (allowed === undefined || allowed.includes(stored))) return stored;
    } catch {
      // storage disabled
    }
    return initial;
  });
  const set = useCallback(
    (v: T) => {
      setValue(v);
      try {
        localStorage.setItem(PREF_PREFIX + key, v);
      } catch {
        // storage disabled
      }
    },
    [key],
  );
  return [value, set];
}

/** Copies text; falls back to a hidden textarea where the async clipboard API is unavailable (plain http). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the legacy path
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}
