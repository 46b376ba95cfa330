// The four SLA breach variables spec 09 §2.7 adds to every report (empty outside `onLate`). Kept
// apart from template.ts and shell.ts so both read one definition; the run context (host, run_id,
// started_at, §6) is run-context.ts's.
import { PyFloat, pyFloatRepr } from '../util/pyjson.ts';
import type { ReportContext } from './types.ts';

/** Template variables: the breach's four (null outside `onLate`). */
export function slaVars(ctx: ReportContext): Record<string, unknown> {
  const sla = ctx.sla ?? null;
  const out: Record<string, unknown> = {
    sla_check: sla?.check ?? null,
    threshold_seconds: sla?.thresholdSeconds ?? null,
    // Python holds it as a float: `130.0`, not `130`.
    observed_seconds: sla ? new PyFloat(sla.observedSeconds) : null,
    last_success_at: sla?.lastSuccessAt ?? null,
  };
  return out;
}

/** Shell reporter variables: the four SLA ones, always (empty outside `onLate`). */
export function slaEnv(ctx: ReportContext): Record<string, string> {
  const sla = ctx.sla ?? null;
  const out: Record<string, string> = {
    CRONSTABLE_SLA_CHECK: sla?.check ?? '',
    CRONSTABLE_SLA_THRESHOLD_SECONDS: sla ? String(sla.thresholdSeconds) : '',
    CRONSTABLE_SLA_OBSERVED_SECONDS: sla ? pyFloatRepr(sla.observedSeconds) : '',
    CRONSTABLE_LAST_SUCCESS_AT: sla?.lastSuccessAt ?? '',
  };
  return out;
}
