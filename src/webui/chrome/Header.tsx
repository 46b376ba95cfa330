// Top bar: wordmark, version, job-set chip (click copies), UTC clock, connection state, summary pills, and the
// theme / token / help buttons.
import { useState } from 'preact/hooks';
import { VIEW_ONLY_TITLE } from '../../dashboard/access.ts';
import { CONNECTION_TEXT, type Connection } from '../../dashboard/connection.ts';
import { formatAge, formatUtcClock, shortJobSetId } from '../../dashboard/format.ts';
import type { Segment } from '../../dashboard/health.ts';
import { isDark, type Theme } from '../../dashboard/settings.ts';
import type { Summary } from '../../dashboard/status.ts';
import type { ApiNode } from '../../dashboard/types.ts';
import { useAccess } from '../app/access.ts';
import type { Api } from '../io/api.ts';
import { copyText } from '../io/hooks.ts';
import { openNodeHistory } from '../views/node/NodeHistory.tsx';
import { UnaccountedPill } from './UnaccountedPill.tsx';

export interface HeaderProps {
  version: string | null;
  jobSetId: string | null;
  now: number;
  conn: Connection;
  lastOk: number;
  summary: Summary | null;
  node: ApiNode | null;
  theme: Theme;
  hasToken: boolean;
  /** The app's API client (its 401s open the token prompt). */
  api: Api;
  /** Refresh is paused: header widgets that poll on their own rest too. */
  paused: boolean;
  onSegment(segment: Segment): void;
  onToggleTheme(): void;
  onToken(): void;
  onHelp(): void;
  onPalette(): void;
  onSettings(): void;
  /** The cluster indicator: absent without a cluster; `alert` when quorum is lost or a conflict shows. */
  cluster: { role: string; alert: boolean; fleet: boolean } | null;
  fleetOpen: boolean;
  onFleet(): void;
}

function Meter({ label, percent }: { label: string; percent: number }) {
  const pct = Math.max(0, Math.min(100, percent));
  const tone = pct >= 90 ? ' meter-hot' : pct >= 70 ? ' meter-warm' : '';
  return (
    <span class={`meter${tone}`} title={`${label} ${pct.toFixed(1)}%`}>
      {label} <b>{Math.round(pct)}%</b>
      <span class="meter-bar" aria-hidden="true">
        <span class="meter-fill" style={{ width: `${pct}%` }} />
      </span>
    </span>
  );
}

/** This node's CPU and memory, from `/node`. */
function NodeMeter({ resources }: { resources: NonNullable<ApiNode['resources']> }) {
  return (
    <button
      type="button"
      class="meters"
      onClick={openNodeHistory}
      title="CPU and memory history of this node"
      data-testid="node-meter"
    >
      <Meter label="cpu" percent={resources.cpu_percent} />
      <Meter label="mem" percent={resources.mem_percent} />
    </button>
  );
}

export function Header(p: HeaderProps) {
  const { publicView } = useAccess();
  const [copied, setCopied] = useState(false);
  const short = p.jobSetId ? shortJobSetId(p.jobSetId) : null;
  const copy = async (): Promise<void> => {
    if (!p.jobSetId) return;
    if (await copyText(p.jobSetId)) {
      setCopied(true);
      window.setTimeout(() => setCopied(false), 1400);
    }
  };
  const connTitle =
    p.conn === 'live' || p.conn === 'stale' || p.conn === 'paused'
      ? `last answer ${formatAge(p.now - p.lastOk)}`
      : p.conn === 'locked'
        ? 'the API wants a token'
        : 'waiting for the daemon';
  const s = p.summary;
  return (
    <header class="topbar">
      <div class="brand">
        <span class="wordmark">
          cron<span class="wordmark-accent">stable</span>
        </span>
        <span class="brand-sub">{`// job scheduler${p.version ? ` v${p.version.replace(/^v/, '')}` : ''}`}</span>
        {p.node?.node_name && (
          <span class="nodename" title="the node serving this dashboard">
            @{p.node.node_name}
          </span>
        )}
        {short !== null && (
          <button
            type="button"
            class="idchip"
            onClick={copy}
            title={`job set ${p.jobSetId} — click to copy`}
            aria-label={`Job set id ${short}, copy full id`}
            data-testid="jobset"
          >
            #{short}
            <span class="idchip-note" aria-live="polite">
              {copied ? 'copied' : ''}
            </span>
          </button>
        )}
      </div>
      <div class="topbar-right">
        <time class="clock" title="UTC time">
          {formatUtcClock(p.now)} <span class="muted">UTC</span>
        </time>
        {p.node?.resources && <NodeMeter resources={p.node.resources} />}
        {p.cluster && (
          <button
            type="button"
            class={`clusterchip${p.cluster.alert ? ' is-alert' : ''}${p.fleetOpen ? ' is-on' : ''}`}
            onClick={p.onFleet}
            disabled={!p.cluster.fleet}
            title={`cluster: ${p.cluster.role}${p.cluster.fleet ? ' — open the fleet view' : ' (no fleet data on this node)'}`}
            data-testid="fleet-button"
          >
            <span class="dot" aria-hidden="true" />
            {p.cluster.alert ? 'cluster alert' : p.cluster.fleet ? '⊞ fleet' : `cluster: ${p.cluster.role}`}
          </button>
        )}
        <span class={`conn conn-${p.conn}`} title={connTitle} role="status" data-testid="conn">
          <span class="conn-dot" aria-hidden="true" key={p.conn === 'live' ? p.lastOk : p.conn} />
          {CONNECTION_TEXT[p.conn]}
        </span>
        <UnaccountedPill api={p.api} paused={p.paused} />
        {s !== null && (
          <nav class="pills" aria-label="Summary">
            <button type="button" class="pill" onClick={() => p.onSegment('all')}>
              <b>{s.total}</b> jobs
            </button>
            <button type="button" class="pill pill-run" onClick={() => p.onSegment('run')}>
              <span class="dot" aria-hidden="true" />
              <b>{s.running}</b> running
            </button>
            <button
              type="button"
              class={`pill pill-fail${s.failing > 0 ? ' pill-hot' : ''}`}
              onClick={() => p.onSegment('fail')}
            >
              <span class="dot" aria-hidden="true" />
              <b>{s.failing}</b> failing
            </button>
            <button type="button" class="pill pill-ok" onClick={() => p.onSegment('ok')}>
              <span class="dot" aria-hidden="true" />
              <b>{s.scheduled}</b> scheduled
            </button>
            <button type="button" class="pill pill-off" onClick={() => p.onSegment('off')}>
              <span class="dot" aria-hidden="true" />
              <b>{s.disabled}</b> disabled
            </button>
            {s.paused > 0 && (
              <button
                type="button"
                data-testid="paused-pill"
                class="pill pill-paused"
                title="Jobs under a runtime pause (resume from the row or the drawer)"
                onClick={() => p.onSegment('all')}
              >
                <span aria-hidden="true">⏸</span> <b>{s.paused}</b> paused
              </button>
            )}
          </nav>
        )}
        <button
          type="button"
          class="iconbtn"
          onClick={p.onToggleTheme}
          aria-label={isDark(p.theme) ? 'Switch to a light theme' : 'Switch to a dark theme'}
          title="Toggle light/dark (T)"
          data-testid="theme-toggle"
        >
          {isDark(p.theme) ? '☀' : '☾'}
        </button>
        <button
          type="button"
          class="iconbtn"
          onClick={p.onPalette}
          aria-label="Command palette"
          title="Command palette (Ctrl-K)"
          data-testid="palette-button"
        >
          ⌘
        </button>
        <button
          type="button"
          class="iconbtn"
          onClick={p.onSettings}
          aria-label="Settings"
          title="Settings"
          data-testid="settings-button"
        >
          ⚙
        </button>
        <button
          type="button"
          class={`iconbtn iconbtn-text${p.hasToken ? ' is-on' : ''}`}
          onClick={p.onToken}
          title={
            publicView ? VIEW_ONLY_TITLE : p.hasToken ? 'A token is set for this tab' : 'Set an API token'
          }
          data-testid="token-button"
        >
          <span class="dot" aria-hidden="true" />
          {publicView ? 'view only' : 'token'}
        </button>
        <button
          type="button"
          class="iconbtn"
          onClick={p.onHelp}
          aria-label="Keyboard shortcuts"
          title="Shortcuts (?)"
        >
          ?
        </button>
      </div>
    </header>
  );
}
