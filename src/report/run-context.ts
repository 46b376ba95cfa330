// The run context of spec 09 §6 (host, schedule, started_at, run_id): what every report's templates
// and shell environment carry about the run, with the fallbacks a context without a run gets.
import { daemonHost } from '../util/host.ts';
import type { ReportContext } from './types.ts';

export interface RunContextValues {
  host: string;
  schedule: string;
  started_at: string | null;
  run_id: string | null;
}

export function runContext(ctx: ReportContext): RunContextValues {
  return {
    host: ctx.host ?? daemonHost(),
    schedule: ctx.schedule,
    started_at: ctx.started_at ?? null,
    run_id: ctx.run_id ?? null,
  };
}
