// The page-wide keys (spec 06 §9.2, the help sheet in src/dashboard/shortcuts.ts): j/k and arrows move the
// selection, Enter opens, r/x run and cancel, and the view and dialog keys; Ctrl/⌘-K and Ctrl-P open the palette
// from anywhere. Keys typed into inputs, dialogs and modals stay there.
import type { RefObject } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { DrawerTab, Route } from '../../dashboard/route.ts';
import type { Row } from '../../dashboard/table.ts';
import type { ApiJob } from '../../dashboard/types.ts';
import { copyText } from '../io/hooks.ts';

/** What the keys read, fresh on every key press. */
export interface KeyState {
  shown: readonly Row[];
  selected: string | null;
  route: Route;
  /** a dialog, palette or prompt is open: the page keys are off */
  modal: boolean;
}

export interface KeyActions {
  select(name: string): void;
  setRoute(route: Route): void;
  openJob(name: string, tab: DrawerTab): void;
  runJob(name: string): void;
  cancelJob(name: string): void;
  togglePause(job: ApiJob): void;
  openHelp(): void;
  nextTheme(): void;
  toggleTheme(): void;
  refreshNow(): void;
  openTimeline(): void;
  toast(text: string, tone: 'ok'): void;
  /** Ctrl/⌘-K, Ctrl-P: closes help and settings, toggles the palette */
  togglePalette(): void;
}

export function useKeyboard(
  state: KeyState,
  actions: KeyActions,
  filterRef: RefObject<HTMLInputElement | null>,
): void {
  // Through refs: a second key press can arrive before an effect re-subscribes.
  const s = useRef(state);
  s.current = state;
  const a = useRef(actions);
  a.current = actions;

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      const { shown, selected, route, modal } = s.current;
      const act = a.current;
      if (modal) return;
      const target = e.target as HTMLElement | null;
      const tag = target?.tagName ?? '';
      if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || target?.isContentEditable) return;
      // ui-schedule: keys typed in a modal (sandbox, node card) stay there
      if (target?.closest('.overlay')) return;
      const inDrawer = target?.closest('.drawer') !== null && target?.closest('.drawer') !== undefined;
      const move = (delta: number): void => {
        if (shown.length === 0) return;
        const i = selected === null ? -1 : shown.findIndex((r) => r.job.name === selected);
        const next =
          i < 0 ? (delta > 0 ? 0 : shown.length - 1) : Math.max(0, Math.min(shown.length - 1, i + delta));
        const name = shown[next]!.job.name;
        act.select(name);
        if (route.drawer !== null)
          act.setRoute({ view: route.view, drawer: { name, tab: route.drawer.tab } });
      };
      const current = route.drawer?.name ?? selected;
      switch (e.key) {
        case '/':
          e.preventDefault();
          filterRef.current?.focus();
          filterRef.current?.select();
          break;
        case 'j':
          move(1);
          break;
        case 'k':
          move(-1);
          break;
        case 'ArrowDown':
        case 'ArrowUp':
          if (inDrawer) return;
          e.preventDefault();
          move(e.key === 'ArrowDown' ? 1 : -1);
          break;
        case 'Enter':
          if (tag === 'BUTTON' || tag === 'A' || selected === null) return;
          // The drawer takes focus as it opens; without this the same key press would then press its ✕.
          e.preventDefault();
          act.openJob(selected, route.drawer?.tab ?? 'logs');
          break;
        case 'r':
          if (current) act.runJob(current);
          break;
        case 'x':
          if (current) act.cancelJob(current);
          break;
        case 'p': {
          const job = current ? shown.find((r) => r.job.name === current)?.job : undefined;
          if (job) act.togglePause(job);
          break;
        }
        case '?':
          act.openHelp();
          break;
        case 't':
          act.nextTheme();
          break;
        case 'T':
          act.toggleTheme();
          break;
        case 'c': {
          const job = current ? shown.find((r) => r.job.name === current)?.job : undefined;
          if (job)
            void copyText(job.command).then(
              (ok) => ok && act.toast(`copied the command of ${job.name}`, 'ok'),
            );
          break;
        }
        case 'v':
          act.setRoute({ view: route.view === 'week' ? 'jobs' : 'week', drawer: route.drawer });
          break;
        case 'g':
          act.refreshNow();
          break;
        case 'i':
          act.openTimeline();
          break;
        case 'w':
          act.setRoute({ view: route.view === 'tv' ? 'jobs' : 'tv', drawer: null });
          break;
        case '1':
        case '2':
        case '3':
        case '4':
          if (route.drawer !== null) {
            const tab = (['logs', 'history', 'schedule', 'resources'] as const)[Number(e.key) - 1]!;
            act.setRoute({ view: route.view, drawer: { name: route.drawer.name, tab } });
          }
          break;
        case 'Escape':
          if (route.drawer !== null) act.setRoute({ view: route.view, drawer: null });
          else if (route.view === 'tv') act.setRoute({ view: 'jobs', drawer: null });
          break;
        default:
          return;
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
    // Re-subscribing on a view change puts this listener after those of the view's components, which then see
    // (and may claim) a key first; the shell always behaved so.
  }, [state.route.view]);

  // Ctrl/⌘-K and Ctrl-P open the palette from anywhere, inputs included (capture: before the focus traps).
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const k = e.key.toLowerCase();
      if (e.altKey || e.shiftKey || !((k === 'k' && (e.ctrlKey || e.metaKey)) || (k === 'p' && e.ctrlKey)))
        return;
      e.preventDefault();
      e.stopPropagation();
      a.current.togglePalette();
    };
    document.addEventListener('keydown', onKey, true);
    return () => document.removeEventListener('keydown', onKey, true);
  }, []);
}
