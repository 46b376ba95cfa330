// The DAG mutations (spec 08 §2.5): trigger, approve / reject a gate, backfill. Each answers with a toast; a
// 401 opens the token modal like every other request.
import { errorText } from '../../../util/errors.ts';
import type { Controller } from '../../app/controller.ts';
import type { Surface } from '../../app/state.ts';
import { type PostResult, seg } from '../../data/client.ts';

function bodyError(body: unknown): string | null {
  if (body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string')
    return (body as { error: string }).error;
  return null;
}

async function post(ctl: Controller, path: string, body?: unknown): Promise<PostResult | string> {
  try {
    const r = await ctl.deps.client.post(path, body);
    if (r.status === 401) {
      ctl.push({ kind: 'token', text: '' } as Surface);
      return 'unauthorized';
    }
    return r;
  } catch (e) {
    return errorText(e);
  }
}

/** `POST /dags/{d}/trigger`: the new run key, or null when refused. */
export async function triggerDag(ctl: Controller, dag: string): Promise<string | null> {
  const r = await post(ctl, `/dags/${seg(dag)}/trigger`);
  if (typeof r === 'string') {
    ctl.toast(`trigger ${dag}: ${r}`, 'fail');
    return null;
  }
  if (r.status !== 200) {
    ctl.toast(`trigger ${dag}: HTTP ${r.status}`, 'fail');
    return null;
  }
  const runKey = String((r.body as { runKey?: unknown })?.runKey ?? '');
  ctl.toast(`▶ ${dag} run ${runKey}`, 'ok');
  return runKey;
}

/** `POST …/tasks/{t}/decision`: true when the daemon recorded it. */
export async function decideTask(
  ctl: Controller,
  dag: string,
  runKey: string,
  task: string,
  decision: 'approve' | 'reject',
): Promise<boolean> {
  const r = await post(ctl, `/dags/${seg(dag)}/runs/${seg(runKey)}/tasks/${seg(task)}/decision`, {
    decision,
    by: 'tui',
  });
  if (typeof r === 'string') {
    ctl.toast(`${decision}: ${r}`, 'fail');
    return false;
  }
  if (r.status !== 200) {
    const why = bodyError(r.body);
    ctl.toast(`${decision}: HTTP ${r.status}${why ? ` — ${why}` : ''}`, 'fail');
    return false;
  }
  ctl.toast(`${decision} ${task}`, 'ok');
  return true;
}

/** `FROM..TO` or `FROM TO` split in two, or null. */
export function parseBackfill(text: string): { from: string; to: string } | null {
  const parts = text
    .trim()
    .split(/\s*\.\.\s*|\s+/)
    .filter((p) => p !== '');
  return parts.length === 2 ? { from: parts[0]!, to: parts[1]! } : null;
}

/** `POST /dags/{d}/backfill`: true when queued. */
export async function backfillDag(ctl: Controller, dag: string, text: string): Promise<boolean> {
  const range = parseBackfill(text);
  if (!range) {
    ctl.toast('backfill wants: FROM..TO (ISO dates)', 'warn');
    return false;
  }
  const r = await post(ctl, `/dags/${seg(dag)}/backfill`, range);
  if (typeof r === 'string') {
    ctl.toast(`backfill: ${r}`, 'fail');
    return false;
  }
  if (r.status !== 200) {
    ctl.toast(`backfill: HTTP ${r.status} — ${bodyError(r.body) ?? ''}`, 'fail');
    return false;
  }
  ctl.toast('▶ backfill queued', 'ok');
  return true;
}
