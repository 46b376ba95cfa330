// The DAG answers (spec 04 §9, spec 06 §5.13) that the `/dags` routes and the MCP DAG tools share.
// The engine's DagWebApi does the work; without a DAG engine (no state store) every DAG is unknown.
import type { DagAnswer, WebContext } from './context.ts';
import { type ApiResult, fail, ok } from './types.ts';
import type {
  DagBackfill,
  DagBackfillPreview,
  DagDecision,
  DagRun,
  DagRuns,
  DagSummary,
  DagTrigger,
  DagXcom,
} from './wire/dags.schema.ts';

/** A DAG this daemon does not run (spec 10 §4.9). */
export const unknownDag = (name: string) => fail(404, `dag '${name}' not found`);
/** Run documents without a store: there is no DAG engine, so nothing was ever recorded. */
export const NO_STORE_TEXT =
  'no `state:` store is configured; DAG run documents only exist in a durable store';
const noStore = () => fail(404, NO_STORE_TEXT);

const typed = <T>(a: DagAnswer): ApiResult<T> => (a.ok ? ok(a.body as T) : fail(a.status, a.error));

/** Whether `name` is a DAG this daemon runs (a DAG engine exists and the config names it). */
export function dagKnown(ctx: WebContext, name: string): boolean {
  return ctx.dags !== undefined && ctx.config().dags.some((d) => d.name === name);
}

/** `GET /dags`: every configured DAG with its run rollups (never fails: store trouble drops rollups). */
export async function dagList(ctx: WebContext): Promise<DagSummary[]> {
  return ctx.dags ? ((await ctx.dags.list()) as DagSummary[]) : [];
}

/** `GET /dags/{name}/runs?limit=`: newest first; 500 when the store read fails. */
export async function dagRuns(ctx: WebContext, name: string, limit: number): Promise<ApiResult<DagRuns>> {
  return ctx.dags ? typed(await ctx.dags.runs(name, limit)) : noStore();
}

/** `GET /dags/{name}/runs/{runKey}`: the run document. */
export async function dagRun(ctx: WebContext, name: string, runKey: string): Promise<ApiResult<DagRun>> {
  return ctx.dags ? typed(await ctx.dags.run(name, runKey)) : noStore();
}

/** `GET /dags/{name}/runs/{runKey}/xcom`. */
export async function dagXcom(ctx: WebContext, name: string, runKey: string): Promise<ApiResult<DagXcom>> {
  return ctx.dags ? typed(await ctx.dags.xcom(name, runKey)) : noStore();
}

/** `POST /dags/{name}/trigger`: 500 when the run document could not be written. */
export async function dagTrigger(ctx: WebContext, name: string): Promise<ApiResult<DagTrigger>> {
  return ctx.dags ? typed(await ctx.dags.trigger(name)) : unknownDag(name);
}

/** `POST /dags/{name}/backfill` with its parsed JSON-object body. */
export async function dagBackfill(
  ctx: WebContext,
  name: string,
  body: Record<string, unknown>,
): Promise<ApiResult<DagBackfill>> {
  return ctx.dags ? typed(await ctx.dags.backfill(name, body)) : unknownDag(name);
}

/** What `dagBackfill` would create, creating nothing: the same walk, the same 400 refusals. */
export function dagBackfillPreview(
  ctx: WebContext,
  name: string,
  body: Record<string, unknown>,
): ApiResult<DagBackfillPreview> {
  if (!ctx.dags?.backfillPreview) return unknownDag(name);
  return typed(ctx.dags.backfillPreview(name, body));
}

/** `POST …/tasks/{taskkey}/decision`: 409 with the reason for every refusal. */
export async function dagDecide(
  ctx: WebContext,
  name: string,
  runKey: string,
  task: string,
  body: Record<string, unknown>,
): Promise<ApiResult<DagDecision>> {
  return ctx.dags ? typed(await ctx.dags.decide(name, runKey, task, body)) : unknownDag(name);
}

/** Live output of a running task instance here: null for an unknown DAG, 'idle' when nothing runs. */
export function dagTaskOutput(ctx: WebContext, name: string, runKey: string, task: string) {
  return ctx.dags?.taskOutput?.(name, runKey, task) ?? null;
}
