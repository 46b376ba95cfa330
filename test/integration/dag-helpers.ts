// A real daemon (dist/cronstable.mjs) running DAGs, driven over its web API and read from its store.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type DaemonRun, startDaemonRun } from '../helpers/daemon-run.ts';
import { jsonOrNull } from '../helpers/json-or-null.ts';
import { waitFor } from '../helpers/sinks.ts';

export const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'cronstable.mjs');

export interface Daemon extends DaemonRun {
  base: string;
}

export function writeConfig(dir: string, dagsYaml: string, extra = ''): string {
  const path = join(dir, 'cronstable.yaml');
  writeFileSync(
    path,
    `state:
  path: ${join(dir, 'state')}
  topology: single-node
  deploymentId: dagtest
web:
  listen:
    - http://127.0.0.1:0
${extra}
dags:
${dagsYaml}`,
  );
  return path;
}

export async function startDaemon(dir: string, env: NodeJS.ProcessEnv = {}): Promise<Daemon> {
  const d: Daemon = Object.assign(startDaemonRun(join(dir, 'cronstable.yaml'), { ...process.env, ...env }), {
    base: '',
  });
  await waitFor(
    () => /web: started listening on (http:\/\/127\.0\.0\.1:\d+)/.test(d.err),
    15_000,
    'the web listener',
  );
  d.base = /web: started listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(d.err)![1]!;
  return d;
}

export async function stopDaemon(d: Daemon): Promise<number | null> {
  if (d.child.exitCode !== null) return d.child.exitCode;
  d.child.kill('SIGTERM');
  return d.exit;
}

export async function api(
  d: Daemon,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown; text: string }> {
  const res = await fetch(`${d.base}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const text = await res.text();
  return { status: res.status, json: jsonOrNull(text), text };
}

export interface TaskDoc {
  id: string;
  state: string;
  attempt: number;
  mapIndex: number | null;
  mapItem?: unknown;
  startedAt: number | null;
  finishedAt: number | null;
  exitCode: number | null;
  failReason: string | null;
  host: string | null;
  pid: number | null;
  pokeCount?: number;
  awaitingApproval?: true;
  approval?: { decision: string; by: string; at: number } | null;
}

export interface RunDoc {
  dag: string;
  runKey: string;
  runId: string;
  kind: string;
  state: string;
  logicalDate: string | null;
  tasks: Record<string, TaskDoc>;
  mapped: Record<string, { items: unknown[] }>;
}

export async function getRun(d: Daemon, dag: string, runKey: string): Promise<RunDoc> {
  const r = await api(d, 'GET', `/dags/${dag}/runs/${encodeURIComponent(runKey)}`);
  if (r.status !== 200) throw new Error(`GET run ${dag}/${runKey}: ${r.status} ${r.text}`);
  return r.json as RunDoc;
}

/** Polls the run until `check` holds; returns the last document. */
export async function waitRun(
  d: Daemon,
  dag: string,
  runKey: string,
  check: (r: RunDoc) => boolean,
  timeoutMs = 30_000,
): Promise<RunDoc> {
  let last: RunDoc | null = null;
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    last = await getRun(d, dag, runKey);
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting on ${dag}/${runKey}: ${JSON.stringify(last)}\n${d.err.slice(-3000)}`);
}

export async function trigger(d: Daemon, dag: string): Promise<string> {
  const r = await api(d, 'POST', `/dags/${dag}/trigger`);
  if (r.status !== 200) throw new Error(`trigger ${dag}: ${r.status} ${r.text}`);
  return (r.json as { runKey: string }).runKey;
}

/** Read-only SQL on the daemon's store (the rows a person would query). */
export function query<T>(dir: string, sql: string, ...params: unknown[]): T[] {
  return queryStore<T>(join(dir, 'state'), sql, ...params);
}

/** Read-only SQL on the store in `stateDir` (the views a person would query), waiting out writers. */
export function queryStore<T>(stateDir: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(join(stateDir, 'cronstable.db'), { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}
