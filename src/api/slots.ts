// Slot fates (issue 15 part 2) that `GET /jobs/{name}/slots`, `GET /slots/unaccounted` and the MCP
// `cron_job_slots` tool share: every scheduled slot of a window and what became of it, from the
// fleet's shared run ledger (or this node's memory when no store is configured).
import type { LedgerRow } from '../scheduler/slots.ts';
import {
  historyRows,
  jobSlots,
  ledgerRows,
  runningRows,
  slotsBody,
  slotWindow,
} from '../scheduler/slots-ledger.ts';
import { errorText } from '../util/errors.ts';
import { parseIsoInstant } from '../util/instant.ts';
import type { WebContext } from './context.ts';
import { nodeName } from './deps.ts';
import { type ApiResult, fail, ok } from './types.ts';
import type { JobSlots, Unaccounted } from './wire/slots.schema.ts';

const UNACCOUNTED_MEMO_MS = 10_000;
/** How long a slot may go unrecorded before `/slots/unaccounted` counts it. */
export const UNACCOUNTED_SETTLE_MS = 10_000;

// A job's slot rows: the shared ledger (or this node's memory without a store), plus its running
// instances here, which no ledger row names yet.
async function rowsOf(ctx: WebContext, name: string, here: string): Promise<LedgerRow[]> {
  const history = ctx.scheduler.history(name);
  const rows = ctx.store ? await ledgerRows(ctx.store, name) : history ? historyRows(history, here) : [];
  return [...rows, ...runningRows(history, here)];
}

const storeTrouble = (e: unknown) => fail(503, `the state store could not be read: ${errorText(e)}`);

/** `GET /jobs/{name}/slots?from=&to=`: the window defaults to the last 24 h. */
export async function jobSlotsView(
  ctx: WebContext,
  name: string,
  from: string | undefined,
  to: string | undefined,
): Promise<ApiResult<JobSlots>> {
  const job = ctx.scheduler.job(name);
  if (!job) return fail(404, `job '${name}' not found`);
  const w = slotWindow(from, to, ctx.clock.now(), parseIsoInstant);
  if ('error' in w) return fail(400, w.error);
  const here = nodeName(ctx);
  let rows: LedgerRow[];
  try {
    rows = await rowsOf(ctx, name, here);
  } catch (e) {
    return storeTrouble(e);
  }
  return ok(slotsBody(job, w, jobSlots(job, rows, w, [here]), ctx.store ? 'ledger' : 'memory'));
}

// The dashboard header's fleet-wide count reads every job's ledger and every open dashboard polls
// it: answers are reused briefly.
const memos = new WeakMap<WebContext, { at: number; body: Unaccounted }>();

/** `GET /slots/unaccounted`: unaccounted slots of every enabled job over the last 24 h. */
export async function unaccountedView(ctx: WebContext): Promise<ApiResult<Unaccounted>> {
  const now = ctx.clock.now();
  const memo = memos.get(ctx);
  if (memo && now - memo.at < UNACCOUNTED_MEMO_MS && now >= memo.at) return ok(memo.body);
  // The window ends a few seconds back: a slot that fired a moment ago has not had the time to be
  // recorded (a loaded node writes its ledger rows a second or two late), and is not "nobody's".
  const to = now - UNACCOUNTED_SETTLE_MS;
  const w = { fromMs: to - 86_400_000, toMs: to };
  const here = nodeName(ctx);
  const jobs: { name: string; unaccounted: number }[] = [];
  try {
    for (const job of ctx.config().jobs) {
      if (!job.cron || !job.enabled) continue;
      const n = jobSlots(job, await rowsOf(ctx, job.name, here), w, [here]).counts.unaccounted ?? 0;
      if (n > 0) jobs.push({ name: job.name, unaccounted: n });
    }
  } catch (e) {
    return storeTrouble(e);
  }
  const body: Unaccounted = {
    from: new Date(w.fromMs).toISOString(),
    to: new Date(w.toMs).toISOString(),
    source: ctx.store ? 'ledger' : 'memory',
    unaccounted: jobs.reduce((a, j) => a + j.unaccounted, 0),
    jobs,
  };
  memos.set(ctx, { at: now, body });
  return ok(body);
}
