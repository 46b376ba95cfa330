// The pause tools (spec 10 §1.6): `cron_pause_job` and `cron_resume_job`, toolset `act`, listed right
// after `cron_cancel_job`. Each checks `name` (the schema), then the confirm rule, then its own
// arguments, then runs the REST action (api/pause.ts) on the `mcp` channel, whose §1.2 refusals come
// back as `isError`. Schemas in src/mcp/tools/pause.schema.ts.
import type { ApiDeps } from '../../api/deps.ts';
import { pauseJob, resumeJob } from '../../api/pause.ts';
import { confirmRefusal, handlerFor, type ToolResult, toolError, toolOk } from '../tool.ts';
import type { PauseSchemas } from '../tools/pause.schema.ts';

const tool = handlerFor<PauseSchemas>();
const MUTATES = { destructive: false, idempotent: true } as const;

/**
 * 07's lenient integers, less its quirk (spec 10 §1.6 Do better): a number or an integral string is
 * taken (a fraction truncated), a boolean or anything unparsable is not. Absent stays absent.
 */
export function durationArgument(v: unknown): { ok: true; value: number | undefined } | { ok: false } {
  if (v === undefined || v === null) return { ok: true, value: undefined };
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? { ok: true, value: Math.trunc(n) } : { ok: false };
}

type PauseArgs = {
  name: string;
  durationSeconds?: unknown;
  until?: unknown;
  note?: unknown;
  confirm?: boolean;
};

/** The pause tool's own checks after the confirm rule, then the REST action on the `mcp` channel. */
function pause(args: PauseArgs, d: ApiDeps): ToolResult {
  const duration = durationArgument(args.durationSeconds);
  if (!duration.ok) return toolError('durationSeconds must be an integer');
  if (args.note !== undefined && args.note !== null && typeof args.note !== 'string')
    return toolError('note must be a string');
  const body = { durationSeconds: duration.value, until: args.until, note: args.note, by: 'mcp' };
  const r = pauseJob(d, args.name, { value: body }, 'mcp');
  if (!r.ok) return toolError(r.error);
  const until = r.body.paused.until;
  return toolOk(`paused job '${args.name}' until ${until}`, { paused: args.name, until });
}

function resume(args: { name: string; confirm?: boolean }, d: ApiDeps): ToolResult {
  const r = resumeJob(d, args.name, { value: { by: 'mcp' } }, 'mcp');
  return r.ok ? toolOk(`resumed job '${args.name}'`, { resumed: args.name }) : toolError(r.error);
}

/** A mutating `act` tool whose action runs only past the confirm rule. */
const control = <A extends { confirm?: boolean }>(
  gerund: string,
  act: (args: A, d: ApiDeps) => ToolResult,
) => ({
  toolset: 'act' as const,
  mutation: { ...MUTATES, gerund },
  run: async (args: A, ctx: { deps: ApiDeps }): Promise<ToolResult> =>
    confirmRefusal(gerund, args.confirm) ?? act(args, ctx.deps),
});

export const pauseHandlers = [
  tool({
    name: 'cron_pause_job',
    title: 'Pause job',
    description:
      "Holds the job's scheduled fires until the pause ends (durationSeconds, default 3600, at most 30 days; or until); slots due meanwhile are recorded as skipped, pending retries wait, manual runs are unaffected. Pausing a paused job replaces its window. Changes state: acts only with confirm=true.",
    ...control('pausing', pause),
  }),
  tool({
    name: 'cron_resume_job',
    title: 'Resume job',
    description:
      "Lifts the job's pause on every node sharing the store, so its scheduled fires run again; never fails on a job that is not paused. Changes state: acts only with confirm=true.",
    ...control('resuming', resume),
  }),
];
