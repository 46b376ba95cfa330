// GET /jobs/{name}/slots (issue 15 part 2): every scheduled slot of a window and its fate, from
// the fleet's shared run ledger (or this node's memory when no store is configured).
import type { Hono } from 'hono';
import { historyRows, jobSlots, ledgerRows, runningRows, slotWindow } from '../../scheduler/slots-ledger.ts';
import { parseIsoInstant } from '../../util/instant.ts';
import { nodeName, type WebDeps } from '../deps.ts';
import { json, jsonError, param, type WebEnv } from '../respond.ts';
import { jobNotFound } from './jobs.ts';

const UNACCOUNTED_MEMO_MS = 10_000;

export function slotRoutes(app: Hono<WebEnv>, d: WebDeps): void {
  const { ctx } = d;

  // The dashboard header's fleet-wide count: unaccounted slots of every job over the last 24 h.
  // Every open dashboard polls it, and it reads every job's ledger: answers are reused briefly.
  let memo: { at: number; body: unknown } | null = null;
  app.get('/slots/unaccounted', async () => {
    const to = ctx.clock.now();
    if (memo && to - memo.at < UNACCOUNTED_MEMO_MS && to >= memo.at) return json(memo.body);
    const w = { fromMs: to - 86_400_000, toMs: to };
    const here = nodeName(ctx);
    const jobs: { name: string; unaccounted: number }[] = [];
    try {
      for (const job of ctx.config().jobs) {
        if (!job.cron || !job.enabled) continue;
        const history = ctx.scheduler.history(job.name);
        const rows = ctx.store
          ? [...(await ledgerRows(ctx.store, job.name)), ...runningRows(history, here)]
          : history
            ? [...historyRows(history, here), ...runningRows(history, here)]
            : [];
        const n = jobSlots(job, rows, w, [here]).counts.unaccounted ?? 0;
        if (n > 0) jobs.push({ name: job.name, unaccounted: n });
      }
    } catch (e) {
      return jsonError(503, `the state store could not be read: ${(e as Error).message}`);
    }
    const body = {
      from: new Date(w.fromMs).toISOString(),
      to: new Date(w.toMs).toISOString(),
      source: ctx.store ? 'ledger' : 'memory',
      unaccounted: jobs.reduce((a, j) => a + j.unaccounted, 0),
      jobs,
    };
    memo = { at: to, body };
    return json(body);
  });

  app.get('/jobs/:name/slots', async (c) => {
    const name = param(c, 'name');
    const job = ctx.scheduler.job(name);
    if (!job) return jobNotFound(name);
    const w = slotWindow(c.req.query('from'), c.req.query('to'), ctx.clock.now(), parseIsoInstant);
    if ('error' in w) return jsonError(400, w.error);
    const here = nodeName(ctx);
    let rows: Awaited<ReturnType<typeof ledgerRows>>;
    try {
      const history = ctx.scheduler.history(name);
      rows = ctx.store ? await ledgerRows(ctx.store, name) : history ? historyRows(history, here) : [];
      rows.push(...runningRows(history, here));
    } catch (e) {
      return jsonError(503, `the state store could not be read: ${(e as Error).message}`);
    }
    const r = jobSlots(job, rows, w, [here]);
    return json({
      name,
      from: new Date(w.fromMs).toISOString(),
      to: new Date(w.toMs).toISOString(),
      source: ctx.store ? 'ledger' : 'memory',
      schedule: job.scheduleText,
      clusterPolicy: job.clusterPolicy,
      counts: r.counts,
      unaccounted: r.counts.unaccounted ?? 0,
      truncated: r.truncated,
      before_history: r.beforeHistory,
      slots: r.slots,
    });
  });
}
