// The two SLA families (spec 09 §2.8): `cronstable_job_late` (1 while a check is latched) and
// `cronstable_job_sla_breaches_total` (+1 per latch entry), labelled like the run counters plus
// `check`. Read from the monitor at scrape time: series exist only for (job, check) pairs it has
// evaluated, so a job without `sla` never has one and a removed job's series go with it.
import type { Metric } from 'prom-client';
import type { WebContext } from '../api/context.ts';
import { Counter, Gauge } from './prom.ts';

export function slaFamilies(ctx: () => WebContext | null): Metric<string>[] {
  const series = () => ctx()?.sla?.()?.series() ?? [];
  const late = new Gauge({
    name: 'cronstable_job_late',
    help: 'Whether an SLA check of the job is breached (1) or not (0), per job and check.',
    labelNames: ['job_name', 'check'],
    registers: [],
    collect() {
      this.reset();
      for (const s of series()) this.set({ job_name: s.job, check: s.check }, s.late);
    },
  });
  // A counter only counts up: each scrape rebuilds it from the monitor's totals.
  const breaches = new Counter({
    name: 'cronstable_job_sla_breaches_total',
    labelNames: ['job_name', 'check'],
    help: 'SLA breaches per job and check (one per latch entry).',
    registers: [],
  });
  (breaches as unknown as { collect: () => void }).collect = () => {
    breaches.reset();
    for (const s of series()) breaches.inc({ job_name: s.job, check: s.check }, s.breaches);
  };
  return [late, breaches] as Metric<string>[];
}
