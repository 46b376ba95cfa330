// The report variables spec 09 adds to every report: the four SLA breach variables (empty
// outside `onLate`, §2.7) and the run facts an `onLate` report sets (§6: host, run_id,
// started_at). Kept apart from template.ts and shell.ts so both read one definition.
import { PyFloat, pyFloatRepr } from '../util/pyjson.ts';
import type { ReportContext } from './types.ts';

/** Template variables: the breach's four (null outside `onLate`) and the run facts the context has. */
export function runFactVars(ctx: ReportContext): Record<string, unknown> {
  const sla = ctx.sla ?? null;
  const out: Record<string, unknown> = {
    sla_check: sla?.check ?? null,
    threshold_seconds: sla?.thresholdSeconds ?? null,
    // Python holds it as a float: `130.0`, not `130`.
    observed_seconds: sla ? new PyFloat(sla.observedSeconds) : null,
    last_success_at: sla?.lastSuccessAt ?? null,
  };
  if (ctx.host !== undefined) out.host = ctx.host;
  if (ctx.run_id !== undefined) out.run_id = ctx.run_id;
  if (ctx.started_at !== undefined) out.started_at = ctx.started_at;
  return out;
}

/** Shell reporter variables: the four SLA ones always (empty outside `onLate`), the run facts when set. */
export function runFactEnv(ctx: ReportContext): Record<string, string> {
  const sla = ctx.sla ?? null;
  const out: Record<string, string> = {
    CRONSTABLE_SLA_CHECK: sla?.check ?? '',
    CRONSTABLE_SLA_THRESHOLD_SECONDS: sla ? String(sla.thresholdSeconds) : '',
    CRONSTABLE_SLA_OBSERVED_SECONDS: sla ? pyFloatRepr(sla.observedSeconds) : '',
    CRONSTABLE_LAST_SUCCESS_AT: sla?.lastSuccessAt ?? '',
  };
  if (ctx.host !== undefined) out.CRONSTABLE_HOST = ctx.host ?? '';
  if (ctx.run_id !== undefined) out.CRONSTABLE_RUN_ID = ctx.run_id ?? '';
  if (ctx.started_at !== undefined) out.CRONSTABLE_STARTED_AT = ctx.started_at ?? '';
  return out;
}
