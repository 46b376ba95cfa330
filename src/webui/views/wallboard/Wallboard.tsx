// The wallboard / TV view (`w`, `#tv`): every job as a large tile, worst first, for a screen across the room; a
// stale-data banner when the daemon stops answering; and after a stretch without input a calm screensaver
// ("zen") that any key or mouse movement dismisses.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { staleAfterMs, staleAge } from '../../../dashboard/connection.ts';
import { formatAge, formatUtcClock } from '../../../dashboard/format.ts';
import { overdueChecks, overdueCount } from '../../../dashboard/sla.ts';
import { STATUS_LABEL } from '../../../dashboard/status.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import {
  DEFAULT_ZEN,
  tileCounts,
  tvTiles,
  ZEN_CHOICES,
  type ZenChoice,
  zenDue,
} from '../../../dashboard/wallboard.ts';
import { usePref } from '../../io/hooks.ts';

const ACTIVITY = ['keydown', 'mousemove', 'mousedown', 'wheel', 'touchstart'] as const;

export function Wallboard({
  jobs,
  now,
  lastOk,
  intervalMs,
  onOpen,
  onExit,
}: {
  jobs: readonly ApiJob[];
  now: number;
  lastOk: number;
  intervalMs: number;
  onOpen(name: string): void;
  onExit(): void;
}) {
  const tiles = useMemo(() => tvTiles(jobs), [jobs]);
  const counts = useMemo(() => tileCounts(tiles), [tiles]);
  const overdue = useMemo(() => new Set(jobs.filter((j) => overdueChecks(j)).map((j) => j.name)), [jobs]);
  const [zenChoice, setZenChoice] = usePref<ZenChoice>('zen', DEFAULT_ZEN, ZEN_CHOICES);
  // The last input lives in a ref: a mouse sweeping over the wall must not re-render the tiles on every move.
  // The 1 s clock re-checks the idle time; waking from zen re-renders at once.
  const lastActivity = useRef(Date.now());
  const [, wake] = useState(0);
  const zen = zenDue(now, lastActivity.current, zenChoice);
  const zenRef = useRef(zen);
  zenRef.current = zen;
  const rootRef = useRef<HTMLElement>(null);

  // While zen shows, the input that wakes the screen does nothing else (capture phase, before the dashboard's own
  // shortcuts see it).
  useEffect(() => {
    const onActivity = (e: Event): void => {
      lastActivity.current = Date.now();
      if (!zenRef.current) return;
      if (e.type !== 'mousemove' && e.type !== 'wheel') {
        e.preventDefault();
        e.stopPropagation();
      }
      zenRef.current = false;
      wake((n) => n + 1);
    };
    for (const t of ACTIVITY) window.addEventListener(t, onActivity, { capture: true });
    return () => {
      for (const t of ACTIVITY) window.removeEventListener(t, onActivity, { capture: true });
    };
  }, []);

  useLayoutEffect(() => {
    rootRef.current?.focus({ preventScroll: true });
  }, []);

  const stale = staleAge(now, lastOk, intervalMs);
  const bad = counts.failed;
  return (
    <section
      ref={rootRef}
      class={`tv${bad > 0 ? ' tv-alarm' : ''}`}
      aria-label="Wallboard"
      tabIndex={-1}
      data-testid="tv"
    >
      <header class="tv-head">
        <span class="wordmark">
          cron<span class="wordmark-accent">stable</span>
        </span>
        <span class={`tv-verdict${bad > 0 ? ' is-bad' : ''}`} data-testid="tv-verdict">
          {bad > 0 ? `${counts.failed} failing` : 'all clear'}
        </span>
        <span class="tv-counts muted">
          {counts.running} running · {counts.ok} ok · {counts.pending} pending · {counts.disabled} off
          {overdue.size > 0 && <span data-testid="tv-overdue"> · {overdueCount(jobs)} overdue</span>}
        </span>
        <span class="toolbar-spacer" />
        <time class="tv-clock">
          {formatUtcClock(now)} <span class="muted">UTC</span>
        </time>
        <label class="select">
          <span class="muted">zen after</span>
          <select
            value={zenChoice}
            onChange={(e) => setZenChoice((e.currentTarget as HTMLSelectElement).value as ZenChoice)}
            aria-label="Screensaver after idle"
          >
            {ZEN_CHOICES.map((c) => (
              <option key={c} value={c}>
                {c === 'off' ? 'off' : Number(c) < 60 ? `${c} s` : `${Number(c) / 60} min`}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="btn" onClick={onExit} title="Leave the wallboard (w or Esc)">
          ✕ exit
        </button>
      </header>
      {stale !== null && (
        <div class="banner banner-warn tv-stale" role="alert" data-testid="tv-stale">
          <span class="banner-icon" aria-hidden="true">
            ◆
          </span>
          <div class="banner-text">
            <strong>STALE DATA — last answer {formatAge(stale)}</strong>
            <span class="banner-sub">
              no fresh answer from the daemon for over {Math.round(staleAfterMs(intervalMs) / 1000)} s; the
              tiles show the last known state
            </span>
          </div>
        </div>
      )}
      <ul class="tv-grid" aria-label="Jobs, worst first" data-testid="tv-grid">
        {tiles.map((t) => (
          <li key={t.name} class={`tv-tile tv-${t.status}`} data-job={t.name} data-status={t.status}>
            <button type="button" class="tv-tile-btn" onClick={() => onOpen(t.name)}>
              <span class="tv-name">{t.name}</span>
              <span class="tv-status">{STATUS_LABEL[t.status]}</span>
              {overdue.has(t.name) && <span class="chip chip-warn tv-overdue-badge">overdue</span>}
              <span class="tv-detail">
                {t.detail}
                {t.finishedAt !== null && t.status !== 'running' && ` · ${formatAge(now - t.finishedAt)}`}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {zen && (
        <div
          class="zen"
          role="dialog"
          aria-modal="true"
          aria-label="Screensaver: press any key"
          data-testid="zen"
        >
          <div class="zen-drift">
            <div class="zen-clock">{formatUtcClock(now)}</div>
            <div class={`zen-line${bad > 0 ? ' is-bad' : ''}`}>
              {bad > 0 ? `${counts.failed} failing` : 'all clear'} · {counts.running} running · {jobs.length}{' '}
              jobs
            </div>
            {stale !== null && <div class="zen-stale">data stale: last answer {formatAge(stale)}</div>}
            <div class="zen-hint muted">press any key</div>
          </div>
        </div>
      )}
    </section>
  );
}
