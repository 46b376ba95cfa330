// Trend cell: one bar per recent run (height = duration, colour = outcome), as a tiny inline SVG.
import { sparkline } from '../../dashboard/sparkline.ts';
import type { ApiHistoryEntry } from '../../dashboard/types.ts';

const W = 72;
const H = 18;

export function Sparkline({ history }: { history: readonly ApiHistoryEntry[] }) {
  if (history.length === 0) return <span class="muted">—</span>;
  const s = sparkline(history, W, H);
  return (
    <svg class="spark" width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label={s.label}>
      <title>{s.label}</title>
      <line class="spark-base" x1="0" y1={H - 0.5} x2={W} y2={H - 0.5} />
      {s.bars.map((b, i) => (
        <rect
          key={i}
          class={`spark-${b.outcome}`}
          x={b.x}
          y={b.y}
          width={b.width}
          height={b.height}
          rx="0.5"
        />
      ))}
    </svg>
  );
}
