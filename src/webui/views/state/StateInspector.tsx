// ⛁ state: the read-only state inspector (spec 06 §5.14). Shown only when `/state` answers with a store; its
// sub-tabs read `/state`, `/state/documents`, `/state/records` and `/state/artifacts` — metadata only, never
// KV values or archived output — and page long lists.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from '../../../dashboard/format.ts';
import { type ApiState, STATE_TABS, type StateTab } from '../../../dashboard/state.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import type { Api } from '../../io/api.ts';
import { usePolling, usePref } from '../../io/hooks.ts';
import { StatePanel } from './StatePanels.tsx';

const TAB_IDS = STATE_TABS.map((t) => t.id);

/**
 * `/state` until it first answers (then its answer is kept), as the polling map asks: the ⛁ state button shows
 * only when a store is configured.
 */
export function useStateProbe(api: Api, tick: number): ApiState | null {
  const [state, setState] = useState<ApiState | null>(null);
  const answered = useRef(false);
  useEffect(() => {
    if (answered.current) return;
    let live = true;
    api
      .json<ApiState>('/state')
      .then((s) => {
        if (!live) return;
        answered.current = true;
        setState(s);
      })
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [api, tick]);
  return state;
}

export function StateInspector({
  api,
  jobs,
  intervalMs,
}: {
  api: Api;
  jobs: readonly ApiJob[];
  intervalMs: number;
}) {
  const [tab, setTab] = usePref<StateTab>('stateTab', 'overview', TAB_IDS);
  const [state, setState] = useState<ApiState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const tabsRef = useRef<HTMLDivElement>(null);

  // While open, /state follows the refresh interval (at least every 10 s).
  usePolling(
    async (live) => {
      try {
        const s = await api.json<ApiState>('/state');
        if (!live()) return;
        setState(s);
        setError(null);
      } catch (err) {
        if (live()) setError(errorText(err));
      }
    },
    Math.min(10_000, intervalMs),
    [api, intervalMs],
  );

  const onTabKey = (e: KeyboardEvent, i: number): void => {
    const keys: Record<string, number> = {
      ArrowRight: 1,
      ArrowLeft: -1,
      Home: -i,
      End: TAB_IDS.length - 1 - i,
    };
    const d = keys[e.key];
    if (d === undefined) return;
    e.preventDefault();
    const next = TAB_IDS[(i + d + TAB_IDS.length) % TAB_IDS.length]!;
    setTab(next);
    tabsRef.current?.querySelector<HTMLElement>(`#stab-${next}`)?.focus();
  };

  return (
    <section class="card stateview" aria-labelledby="state-title" data-testid="state">
      <div class="card-head">
        <h2 id="state-title" class="card-title">
          <span aria-hidden="true">┌─ </span>State inspector
        </h2>
        {state?.enabled && (
          <span class="card-meta">
            {state.backend} · namespace {state.namespace} · {state.topology} · read-only
          </span>
        )}
      </div>
      <div class="tabs stabs" role="tablist" aria-label="State views" ref={tabsRef}>
        {STATE_TABS.map((t, i) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`stab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls="state-panel"
            tabIndex={tab === t.id ? 0 : -1}
            class={tab === t.id ? 'tab is-on' : 'tab'}
            onClick={() => setTab(t.id)}
            onKeyDown={(e) => onTabKey(e, i)}
            data-testid={`stab-${t.id}`}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div class="state-body" role="tabpanel" id="state-panel" aria-labelledby={`stab-${tab}`}>
        {error !== null && <p class="empty">Could not read /state: {error}</p>}
        {state === null ? (
          error === null && <p class="empty">loading…</p>
        ) : !state.enabled ? (
          <p class="empty">No state store is configured on this daemon.</p>
        ) : (
          <StatePanel tab={tab} state={state} api={api} jobs={jobs} />
        )}
      </div>
    </section>
  );
}
