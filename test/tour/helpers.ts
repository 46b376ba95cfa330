// Shared pieces of the grand tour's "Things to try" tests (test/tour/*.test.ts): authorised HTTP
// against one node, DAG run polling, read-only SQL on the shared store, the daemons' task-start log
// lines, and the built CLI. Every assertion reads what a person would look at: the API, the
// store every node writes, or the nodes' own logs.
import { spawnSync } from 'node:child_process';
import { waitUntil } from '../../scripts/fleet/fleet.ts';
import type { FleetNode } from '../cluster/harness.ts';
import { jsonOrNull } from '../helpers/json-or-null.ts';
import { BUNDLE, queryStore, type RunDoc } from '../integration/dag-helpers.ts';

export { BUNDLE, queryStore as query, type RunDoc };

/** `fetch` against one node, with the bearer token when the tour runs with `WEB_TOKEN`. */
export async function call(
  node: FleetNode,
  path: string,
  opts: { method?: 'GET' | 'POST'; body?: unknown; token?: string | null; timeoutMs?: number } = {},
): Promise<{ status: number; text: string; json: unknown; headers: Headers }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const send = () =>
    fetch(`${node.url}${path}`, {
      method: opts.method ?? 'GET',
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
    });
  let res: Response;
  try {
    res = await send();
  } catch (e) {
    // A kept-alive socket the server closed while the test was busy: a GET is safe to resend.
    const code = ((e as Error).cause as { code?: string } | undefined)?.code;
    if ((opts.method ?? 'GET') !== 'GET' || code !== 'UND_ERR_SOCKET') throw e;
    res = await send();
  }
  const text = await res.text();
  return { status: res.status, text, json: jsonOrNull(text), headers: res.headers };
}

/** The JSON body of a 200 answer; anything else throws with the status and body. */
export async function getJson<T>(node: FleetNode, path: string, token?: string | null): Promise<T> {
  const r = await call(node, path, { token });
  if (r.status !== 200) throw new Error(`${node.id} GET ${path}: ${r.status} ${r.text}`);
  return r.json as T;
}

export async function trigger(node: FleetNode, dag: string, token?: string | null): Promise<string> {
  const r = await call(node, `/dags/${dag}/trigger`, { method: 'POST', token });
  if (r.status !== 200) throw new Error(`${node.id} trigger ${dag}: ${r.status} ${r.text}`);
  const body = r.json as { dag: string; runKey: string };
  if (body.dag !== dag || !/^manual-/.test(body.runKey)) throw new Error(`trigger answered ${r.text}`);
  return body.runKey;
}

export function getRun(node: FleetNode, dag: string, runKey: string, token?: string | null): Promise<RunDoc> {
  return getJson<RunDoc>(node, `/dags/${dag}/runs/${encodeURIComponent(runKey)}`, token);
}

/** Polls the run on `node` until `check` holds; the timeout names the last document seen. */
export async function waitRun(
  node: FleetNode,
  dag: string,
  runKey: string,
  check: (r: RunDoc) => boolean,
  opts: { token?: string | null; timeoutMs?: number } = {},
): Promise<RunDoc> {
  let last: RunDoc | null = null;
  try {
    return await waitUntil(
      async () => {
        last = await getRun(node, dag, runKey, opts.token);
        return check(last) ? last : null;
      },
      { timeoutMs: opts.timeoutMs ?? 30_000, label: `${dag}/${runKey} on ${node.id}`, everyMs: 250 },
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last run: ${JSON.stringify(last)}`);
  }
}

/** A value of the store's `kv` view (JSON-decoded when it is JSON text), or null. */
export function kvValue(stateDir: string, ns: string, scope: string, key: string): unknown {
  const rows = queryStore<{ value: unknown }>(
    stateDir,
    'SELECT value FROM kv WHERE ns = ? AND scope = ? AND key = ?',
    ns,
    scope,
    key,
  );
  return rows[0]?.value ?? null;
}

/**
 * Every `dag task … started (<runKey>/<taskKey>, attempt N)` line the nodes logged for one run,
 * as `node taskKey attempt` (the daemons' own record of each process they launched).
 */
export function taskStarts(nodes: FleetNode[], runKey: string): string[] {
  const out: string[] = [];
  const re = /dag task \S+ started \(([^/]+)\/(\S+), attempt (\d+)\)/g;
  for (const n of nodes)
    for (const m of n.log().matchAll(re)) if (m[1] === runKey) out.push(`${n.id} ${m[2]} ${m[3]}`);
  return out;
}

/** The built CLI, as a person runs it (`cronstable -c DIR …`). */
export function cli(
  args: string[],
  env: Record<string, string> = {},
): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BUNDLE, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
