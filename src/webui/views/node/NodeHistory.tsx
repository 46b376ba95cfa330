// Node resources card: the header's CPU/mem meter opens this chart of `/node/history` (the node sampler's
// [time, cpu %, mem %] points), refreshed at the sampler's interval while open.
import { useEffect, useState } from 'preact/hooks';
import { errorText, formatAge } from '../../../dashboard/format.ts';
import {
  type ApiNodeHistory,
  chartPoints,
  columnStats,
  formatPercentValue,
} from '../../../dashboard/resources.ts';
import { Dialog } from '../../chrome/Dialog.tsx';
import type { Api } from '../../io/api.ts';
import { usePolling } from '../../io/hooks.ts';

const OPEN_EVENT = 'cronstable:node-history';
const W = 640;
const H = 160;

/** Opens the node card (the header meter's click; the command palette may call it too). */
export function openNodeHistory(): void {
  window.dispatchEvent(new Event(OPEN_EVENT));
}

export function NodeHistoryHost({ api }: { api: Api }) {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onOpen = (): void => setOpen(true);
    window.addEventListener(OPEN_EVENT, onOpen);
    return () => window.removeEventListener(OPEN_EVENT, onOpen);
  }, []);
  return open ? <NodeHistoryCard api={api} onClose={() => setOpen(false)} /> : null;
}

function NodeHistoryCard({ api, onClose }: { api: Api; onClose(): void }) {
  const [data, setData] = useState<ApiNodeHistory | null>(null);
  const [error, setError] = useState<string | null>(null);
  usePolling(
    async (live) => {
      let wait = 5000;
      try {
        const d = await api.json<ApiNodeHistory>('/node/history');
        if (!live()) return;
        setData(d);
        setError(null);
        if (d.interval) wait = Math.max(1000, d.interval * 1000);
      } catch (err) {
        if (live()) setError(errorText(err));
      }
      return wait;
    },
    5000,
    [api],
  );
  const pts = data?.points ?? [];
  const cpu = columnStats(pts, 1);
  const mem = columnStats(pts, 2);
  const first = pts[0]?.[0];
  return (
    <Dialog title={`Node resources${data ? ` · ${data.node_name}` : ''}`} onClose={onClose} wide>
      <div class="nodecard" data-testid="node-history">
        {error !== null && <p class="empty">Could not load /node/history: {error}</p>}
        {data === null ? (
          error === null && <p class="empty">loading…</p>
        ) : !data.enabled ? (
          <p class="empty">The node sampler is off (web.nodeHistory: false).</p>
        ) : pts.length === 0 ? (
          <p class="empty">No samples yet: the first arrives {data.interval} s after the start.</p>
        ) : (
          <>
            <div class="stats">
              <Stat label="cpu now" value={formatPercentValue(cpu?.last)} tone="cpu" />
              <Stat label="cpu mean" value={formatPercentValue(cpu?.mean)} />
              <Stat label="cpu max" value={formatPercentValue(cpu?.max)} />
              <Stat label="mem now" value={formatPercentValue(mem?.last)} tone="mem" />
              <Stat label="mem max" value={formatPercentValue(mem?.max)} />
              <Stat label="samples" value={String(pts.length)} testid="node-samples" />
            </div>
            <svg
              class="reschart"
              viewBox={`0 0 ${W} ${H}`}
              preserveAspectRatio="none"
              role="img"
              aria-label={`CPU and memory, last ${pts.length} samples`}
              data-testid="node-chart"
            >
              {[25, 50, 75].map((g) => (
                <line key={g} class="rc-grid" x1="0" x2={W} y1={H - (g / 100) * H} y2={H - (g / 100) * H} />
              ))}
              <polyline class="rc-cpu" points={chartPoints(pts, 1, W, H, 100)} />
              <polyline class="rc-mem" points={chartPoints(pts, 2, W, H, 100)} />
            </svg>
            <div class="rc-legend">
              <span class="rc-key rc-key-cpu">cpu %</span> <span class="rc-key rc-key-mem">mem %</span>
              <span class="muted">
                every {data.interval} s · since {first ? formatAge(Date.now() - first * 1000) : '—'}
              </span>
            </div>
          </>
        )}
      </div>
    </Dialog>
  );
}

function Stat({
  label,
  value,
  tone,
  testid,
}: {
  label: string;
  value: string;
  tone?: string;
  testid?: string;
}) {
  return (
    <div class="stat">
      <div class="stat-label">{label}</div>
      <div class={`stat-value${tone ? ` rc-text-${tone}` : ''}`} data-testid={testid}>
        {value}
      </div>
    </div>
  );
}
