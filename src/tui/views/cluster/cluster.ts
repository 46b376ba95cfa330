// The cluster panel (spec 08 §4.12; the web twin is ClusterPanel.tsx): the shared summary line with this node's
// role, its load, the cluster alert and conflict notes, then the peer table (gossip) or the lease block (lease
// backends). Data: `/cluster` and `/jobs`, both already polled. Scroll keys scroll (Q17).
import {
  agreement,
  clusterAlert,
  conflictNotes,
  isLeaseBackend,
  isSpread,
  loadText,
  ownsCount,
  type PeerTone,
  peerTone,
  summaryLine,
} from '../../../dashboard/cluster.ts';
import { formatAge, formatIn, parseIso } from '../../../dashboard/format.ts';
import type { ApiCluster, ApiJob, ApiPeer } from '../../../dashboard/types.ts';
import type { Surface } from '../../app/state.ts';
import { flatten } from '../../text/sanitize.ts';
import type { Role } from '../../text/theme.ts';
import { fit } from '../../text/width.ts';
import {
  commonPanelKey,
  type PanelGlyphs,
  type PanelRow,
  paintPanel,
  panelDescriptor,
  panelGlyphs,
  type ScrollSurface,
} from '../panelkit.ts';
import type { PanelPaint, RenderCtx, View, ViewDescriptor } from '../types.ts';

export interface ClusterSurface extends ScrollSurface {
  kind: 'cluster';
}

const WIDTH = 84;

const TONE_ROLE: Record<PeerTone, Role> = {
  good: 'ok',
  warn: 'warn',
  bad: 'fail',
  gone: 'off',
  self: 'dim',
  faint: 'dim',
};

/** `✓` agreed, `·` not known yet (or this node), `✕` anything else. */
function peerMark(status: string, pg: PanelGlyphs): string {
  if (status === 'agreed') return pg.ok;
  if (status === 'unknown' || status === 'self') return pg.dot;
  return pg.bad;
}

const LEASE_LABELS: Record<string, string> = {
  holder: 'held by',
  expiry: 'expires',
  fence: 'fence',
  electionName: 'election',
  identity: 'our identity',
  path: 'store path',
  leaseId: 'lease id',
  name: 'lease',
  namespace: 'namespace',
};

function leaseRows(c: ApiCluster, now: number): PanelRow[] {
  const lease = c.lease ?? {};
  const entries = Object.entries(lease);
  if (entries.length === 0) return [[['  no lease observed yet', { fg: 'dim' }]]];
  const ours = new Set([c.node_name, lease.identity].filter((v): v is string => typeof v === 'string'));
  return entries.map(([k, v]) => {
    const label = `  ${fit(LEASE_LABELS[k] ?? k, 14)} `;
    let text = v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    let role: Role = 'fg';
    if (k === 'holder' && typeof v === 'string') role = ours.has(v) || c.is_leader === true ? 'ok' : 'fg';
    const at = k === 'expiry' && typeof v === 'string' ? parseIso(v) : null;
    if (at !== null) {
      text = at <= now ? `expired · ${v}` : `${formatIn(at - now)} · ${v}`;
      role = at <= now ? 'warn' : 'fg';
    }
    return [
      [label, { fg: 'dim' }],
      [flatten(text), { fg: role }],
    ];
  });
}

function peerRows(c: ApiCluster, jobs: readonly ApiJob[], now: number, pg: PanelGlyphs): PanelRow[] {
  if (c.peers.length === 0) return [[['  no peers configured', { fg: 'dim' }]]];
  const spread = isSpread(c);
  const ours = c.job_set_id ?? null;
  const head: PanelRow = [
    [
      `    ${fit('peer', 22)} ${fit('node', 14)} ${fit('status', 12)} ${fit('cpu / mem', 10)} ${spread ? `${fit('owns', 5)} ` : ''}job set`,
      { fg: 'dim', bold: true },
    ],
  ];
  const rows: PanelRow[] = [head];
  for (const p of c.peers) rows.push(...peerRow(p, { spread, ours, jobs, now, pg }));
  return rows;
}

function peerRow(
  p: ApiPeer,
  o: { spread: boolean; ours: string | null; jobs: readonly ApiJob[]; now: number; pg: PanelGlyphs },
): PanelRow[] {
  const role = TONE_ROLE[peerTone(p.status)];
  const node = p.node_name ? flatten(p.node_name) : '—';
  const setId = p.job_set_id
    ? flatten(p.job_set_id)
        .replace(/^v\d+:/, '')
        .slice(0, 12)
    : '—';
  const differs = o.ours !== null && p.job_set_id && p.job_set_id !== o.ours;
  const row: PanelRow = [
    [`  ${peerMark(p.status, o.pg)} `, { fg: role, bold: true }],
    [`${fit(flatten(p.host), 22)} `, { fg: 'fg' }],
    [`${fit(node, 14)} `, { fg: 'bright' }],
    [`${fit(flatten(p.status), 12)} `, { fg: role }],
    [`${fit(loadText(p.node_stats) ?? '—', 10)} `, { fg: 'fg' }],
  ];
  if (o.spread)
    row.push([`${fit(p.node_name ? String(ownsCount(o.jobs, p.node_name)) : '', 5)} `, { fg: 'fg' }]);
  row.push([setId, { fg: differs ? 'warn' : 'dim' }]);
  const out = [row];
  const seen = parseIso(p.last_seen);
  const notes: string[] = [];
  if (p.status !== 'agreed') notes.push(seen === null ? 'never seen' : `seen ${formatAge(o.now - seen)}`);
  if (p.last_error && p.status !== 'agreed') notes.push(`last error: ${flatten(p.last_error)}`);
  if ((p.mismatch_streak ?? 0) > 0) notes.push(`job set differs ${p.mismatch_streak} rounds`);
  if (notes.length > 0) out.push([[`      └ ${notes.join(' · ')}`, { fg: 'dim' }]]);
  return out;
}

/** The panel's rows for a `/cluster` answer (null = not loaded yet). */
export function clusterRows(
  c: ApiCluster | null,
  jobs: readonly ApiJob[],
  now: number,
  pg: PanelGlyphs,
): PanelRow[] {
  if (c === null) return [[[' waiting for /cluster…', { fg: 'dim' }]]];
  if (!c.enabled)
    return [
      [[' no cluster configured (single node)', { fg: 'fg' }]],
      [[' a `cluster:` section starts a gossip mesh or a lease backend', { fg: 'dim' }]],
    ];
  const rows: PanelRow[] = [[[` ${flatten(summaryLine(c, jobs))}`, { fg: 'bright', bold: true }]]];
  const facts = [`backend ${flatten(c.backend ?? '?')}`];
  if (!isLeaseBackend(c)) {
    const { agreed, counted } = agreement(c);
    facts.push(`${agreed + 1} of ${counted + 1} nodes in agreement`);
  }
  if (c.cluster_size !== undefined) facts.push(`size ${c.cluster_size}`);
  if (c.quorum !== undefined) facts.push(`quorum ${c.quorum}`);
  if (c.distribution) facts.push(flatten(c.distribution));
  if (c.job_set_id)
    facts.push(
      `job set ${flatten(c.job_set_id)
        .replace(/^v\d+:/, '')
        .slice(0, 12)}`,
    );
  rows.push([[` ${facts.join(' · ')}`, { fg: 'dim' }]]);
  const load = loadText(c.node_stats);
  rows.push([
    [` this node: ${load ? load.replace(' / ', ' cpu / ').concat(' mem') : 'load not shared'}`, { fg: 'fg' }],
  ]);
  const alert = clusterAlert(c);
  if (alert) {
    rows.push([[` ☢ ${flatten(alert.title)}`, { fg: 'fail', bold: true }]]);
    if (alert.detail) rows.push([[`   ${flatten(alert.detail)}`, { fg: 'fail' }]]);
  }
  for (const n of conflictNotes(c)) rows.push([[` ⚠ ${flatten(n)}`, { fg: 'warn' }]]);
  rows.push([['']]);
  if (isLeaseBackend(c)) {
    rows.push([[' lease', { fg: 'dim', bold: true }]]);
    rows.push(...leaseRows(c, now));
  } else rows.push(...peerRows(c, jobs, now, pg));
  return rows;
}

export const clusterView: View<ClusterSurface> = {
  kind: 'cluster',
  paint(p, ctx: RenderCtx): PanelPaint {
    const { s } = ctx;
    return paintPanel(p, ctx, {
      title: 'cluster',
      width: WIDTH,
      rows: clusterRows(s.data.cluster, s.data.jobs, s.now, panelGlyphs(ctx.g)),
      hint: 'j/k scroll · F fleet · N node · esc close',
    });
  },
  key: (p, key, ctx) => commonPanelKey(p, key, ctx),
};

export const clusterDescriptor: ViewDescriptor = panelDescriptor('cluster', clusterView, {
  key: 'C',
  title: 'Toggle cluster panel',
  icon: '☍',
  what: 'Cluster panel',
  create: () => ({ kind: 'cluster', scroll: 0 }) as ClusterSurface as Surface,
});
