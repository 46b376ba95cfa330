// cronstable_job_slots_total and the node-local /jobs/{name}/slots (no store): a real scheduler runs
// a per-second Forbid job whose run outlasts the next slot, so slots alternate ran / skipped-overlap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, job, LOOPBACK, startHarness, waitUntil } from './web-harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies, checked field by field below
type Parsed = Record<string, any>;

function slotSamples(text: string, jobName: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^cronstable_job_slots_total\{([^}]*)\} (\S+)$/gm)) {
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((p) => [p[1], p[2]]));
    if (labels.job_name === jobName) out[labels.outcome!] = Number(m[2]);
  }
  return out;
}

describe('slot outcomes in /metrics and in the node-local slots view', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(
      job('busy', 'sleep 1.3', '* * * * * * *', ['concurrencyPolicy: Forbid']),
      `${LOOPBACK}\n  metrics:\n    public: true`,
    );
    await waitUntil(() => {
      const slots = h.scheduler.history('busy')?.recentSlots() ?? [];
      const ran = h.scheduler.history('busy')?.recentRuns().length ?? 0;
      return ran >= 1 && slots.some((s) => s.outcome === 'skipped:overlap');
    }, 15_000);
  });
  afterAll(async () => {
    await h.stop();
  });

  it('counts each settled slot under its outcome', async () => {
    const res = await h.get('/metrics');
    const text = await res.text();
    expect(text).toContain('# TYPE cronstable_job_slots_total counter');
    const s = slotSamples(text, 'busy');
    expect(s.ran).toBeGreaterThanOrEqual(1);
    expect(s['skipped-overlap']).toBeGreaterThanOrEqual(1);
    expect(Object.keys(s).every((k) => k === 'ran' || k === 'skipped-overlap' || k === 'failed')).toBe(true);
  });

  it('lists the same fates from this node’s memory when there is no store', async () => {
    const res = await h.get(`/jobs/busy/slots?from=${new Date(Date.now() - 60_000).toISOString()}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Parsed;
    expect(body.source).toBe('memory');
    const fates = new Set(body.slots.map((s: Parsed) => s.outcome));
    expect(fates.has('ran')).toBe(true);
    expect(fates.has('skipped-overlap')).toBe(true);
    const ran = body.slots.find((s: Parsed) => s.outcome === 'ran');
    expect(ran.run_id).toMatch(/\S/);
    // Slots before the daemon started predate this node's history; since then every slot has a
    // fate (the one due this very instant may still be in admission).
    expect(body.before_history).toBeGreaterThan(0);
    expect(body.unaccounted).toBeLessThanOrEqual(1);
  });
});
