// The slot view (issue 15 part 2): `slotFates` over the default 24-hour window for a per-second job
// (86,400 instants, capped to the newest 5000, against 1000 ledger rows: the default maxRunsPerJob)
// and for a per-minute job with three nodes' rows per slot (a fleet where every slot has one run and
// two claimed-elsewhere rows). What GET /jobs/{name}/slots and `cronstable slots` compute per call.
import { parseCron, UTC_FRAME } from '../src/schedule/index.ts';
import { type LedgerRow, slotFates } from '../src/scheduler/slots.ts';
import { bestOf, type Metric } from './metric.ts';

const NOW = Date.UTC(2026, 0, 7, 12, 0, 0);
const DAY = 86_400_000;

function rows(stepMs: number, count: number, nodes: string[]): LedgerRow[] {
  const out: LedgerRow[] = [];
  let id = 0;
  for (let i = 0; i < count; i++) {
    const at = new Date(NOW - (i + 1) * stepMs).toISOString();
    for (const [k, node] of nodes.entries())
      out.push({
        id: ++id,
        node,
        scheduledAt: at,
        outcome: k === 0 ? 'success' : 'claimed-elsewhere',
        trigger: 'schedule',
        attempt: 0,
        runId: k === 0 ? `r${i}` : null,
        failReason: null,
      });
  }
  return out;
}

export async function run(): Promise<Metric[]> {
  const perSecond = parseCron('* * * * * * *');
  const secondRows = rows(1000, 1000, ['node-a']);
  const perMinute = parseCron('* * * * *');
  const minuteRows = rows(60_000, 1440, ['node-a', 'node-b', 'node-c']);
  const query = (cron: typeof perSecond, r: LedgerRow[]) =>
    slotFates({
      cron,
      frame: UTC_FRAME,
      everyNode: false,
      fromMs: NOW - DAY,
      toMs: NOW,
      rows: r,
      limit: 5000,
    });
  const a = query(perSecond, secondRows);
  const b = query(perMinute, minuteRows);
  // Guard the measured work: a wrong answer must not be timed as a fast one.
  if (a.slots.length !== 5000 || a.counts.ran !== 1000) throw new Error('per-second slot view is wrong');
  if (b.slots.length !== 1440 || b.counts.ran !== 1440) throw new Error('per-minute slot view is wrong');
  const sec = await bestOf(10, () => query(perSecond, secondRows));
  const min = await bestOf(10, () => query(perMinute, minuteRows));
  return [
    { metric: 'slots.per_second_day_ms', value: +(sec * 1000).toFixed(2), unit: 'ms' },
    { metric: 'slots.per_minute_day_3_nodes_ms', value: +(min * 1000).toFixed(2), unit: 'ms' },
  ];
}
