// GET /jobs/{name}/slots (issue 15 part 2): every scheduled slot of a window and its fate, from
// the fleet's shared run ledger (or this node's memory when no store is configured).
import type { Hono } from 'hono';
import type { LedgerRow } from '../../scheduler/slots.ts';
import {
  historyRows,
  jobSlots,
  ledgerRows,
  runningRows,
  slotsBody,
  slotWindow,
} from '../../scheduler/slots-ledger.ts';
import { parseIsoInstant } from '../../util/instant.ts';
import { nodeName, type WebDeps } from '../deps.ts';
import { json, jsonError, param, type WebEnv } from '../respond.ts';
import { jobNotFound } from './jobs.ts';

const UNACCOUNTED_MEMO_MS = 10_000;

export function slotRoutes(app: Hono<WebEnv>, d: WebDeps): void {
  const { ctx } = d;
  // A job's slot rows: the shared ledger (or this node's memory without a store), plus its running
  // instances here, which no ledger row names yet.
  const rowsOf = async (name: string, here: string): Promise<LedgerRow[]> => {
    const history = ctx.scheduler.history(name);
    const rows = ctx.store ? await ledgerRows(ctx.store, name) : history ? historyRows(history, here) : [];
    return [...rows, ...runningRows(history, here)];
  };

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
        const n = jobSlots(job, await rowsOf(job.name, here), w, [here]).counts.unaccounted ?? 0;
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
    let rows: LedgerRow[];
    try {
      rows = await rowsOf(name, here);
    } catch (e) {
      return jsonError(503, `the state store could not be read: ${(e as Error).message}`);
    }
    return json(slotsBody(job, w, jobSlots(job, rows, w, [here]), ctx.store ? 'ledger' : 'memory'));
  });
}
