// The cluster tests' harness: a real fleet (scripts/fleet) with short timings (spec 05 §14:
// interval 1, driftAfter 2, connectTimeout 1, ttl 3), free ports, optional link proxies, and the
// exactly-once check read from the shared ledger. One fleet per test file, reused across its
// scenarios; everything is stopped and removed after the file.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  Fleet,
  type FleetNode,
  type FleetOptions,
  SHORT_TIMINGS,
  waitUntil,
} from '../../scripts/fleet/fleet.ts';
import { type ExactlyOnceReport, exactlyOnce, readRuns, tallySlots } from '../../scripts/fleet/ledger.ts';
import { rendezvousOwner } from '../../src/cluster/rendezvous.ts';
import { ProxyMesh } from './proxy.ts';

export { waitUntil } from '../../scripts/fleet/fleet.ts';

export interface JobDef {
  name: string;
  policy: 'Leader' | 'PreferLeader' | 'EveryNode';
  /** Default: every second (7 fields: seconds first, year last; spec 01). */
  schedule?: string;
  command?: string;
}

/** A job set file's text: every job echoes its node; `extra` goes verbatim under `jobs:`. */
export function jobsYaml(jobs: JobDef[], extra = ''): string {
  const lines = ['defaults:', '  shell: /bin/sh', 'jobs:'];
  for (const j of jobs) {
    lines.push(
      `  - name: ${j.name}`,
      `    command: ${JSON.stringify(j.command ?? 'echo "$HOSTNAME"')}`,
      `    schedule: "${j.schedule ?? '* * * * * * *'}"`,
      `    clusterPolicy: ${j.policy}`,
    );
  }
  return `${lines.join('\n')}\n${extra}`;
}

export interface TestFleet {
  /** Set once the file's beforeAll has started the fleet. */
  fleet: Fleet;
  mesh: ProxyMesh | null;
  node(id: string): FleetNode;
}

export type TestFleetOptions = Omit<FleetOptions, 'webPortBase' | 'peerPort'> & {
  proxy?: boolean;
  /** false: plan and write the nodes, start none (the test edits specs first). */
  start?: boolean;
};

/** Starts a fleet with test timings, free ports and (with `proxy`) a LinkProxy on every link. */
export async function startFleet(opts: TestFleetOptions): Promise<{ fleet: Fleet; mesh: ProxyMesh | null }> {
  if (!existsSync(new URL('../../dist/cronstable.mjs', import.meta.url)))
    throw new Error('dist/cronstable.mjs is missing: run `npm run build` first');
  const mesh = opts.proxy ? new ProxyMesh() : null;
  try {
    const fleet = await Fleet.create({
      ...opts,
      timings: { ...SHORT_TIMINGS, ...opts.timings },
      webPortBase: 'free',
      peerPort: 'free',
      stopGraceMs: opts.stopGraceMs ?? 8000,
      shutdownTimeout: opts.shutdownTimeout ?? 2,
      peerHost: mesh ? mesh.peerHost : opts.peerHost,
    });
    return { fleet, mesh };
  } catch (e) {
    await mesh?.close();
    throw e;
  }
}

/**
 * The test file's fleet: started in beforeAll, stopped and removed in afterAll. `proxy: true`
 * routes every `/peer` link through a LinkProxy so the file can partition the fleet.
 */
export function useFleet(opts: TestFleetOptions): TestFleet {
  const handle = {
    fleet: null as unknown as Fleet,
    mesh: null as ProxyMesh | null,
    node: (id: string) => handle.fleet.node(id),
  };
  beforeAll(async () => {
    const started = await startFleet(opts);
    handle.fleet = started.fleet;
    handle.mesh = started.mesh;
  }, 90_000);
  afterAll(async () => {
    await handle.fleet?.close();
    await handle.mesh?.close();
  }, 60_000);
  return handle;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The next whole second after now plus `afterMs`: window edges align with per-second slots. */
export function secondFromNow(afterMs = 0): number {
  return Math.ceil((Date.now() + afterMs) / 1000) * 1000;
}

/**
 * Waits until the ledger has settled past `toMs` and returns the exactly-once report of `jobs`
 * over [fromMs, toMs]. Runs are appended when they finish: once every slot has a run, a short
 * grace more lets a second run of the same slot land too; a window where slots are missing
 * (a node that stood down) is read after `settleMs`.
 */
export async function ledgerWindow(
  fleet: Fleet,
  jobs: string[],
  fromMs: number,
  toMs: number,
  settleMs = 1800,
): Promise<ExactlyOnceReport> {
  const read = () => exactlyOnce(fleet.stateDir, { jobs, fromMs, toMs, ns: fleet.shape.deploymentId });
  await sleep(Math.max(0, toMs + 300 - Date.now()));
  while (Date.now() < toMs + settleMs) {
    if (read().missing.length === 0) {
      await sleep(600);
      break;
    }
    await sleep(150);
  }
  return read();
}

/** Every slot of `jobs` in the window ran exactly once fleet-wide (at most `maxMissing` lost). */
export async function expectExactlyOnce(
  fleet: Fleet,
  jobs: string[],
  fromMs: number,
  toMs: number,
  opts: { maxMissing?: number } = {},
): Promise<ExactlyOnceReport> {
  // Where no slot may be missing, a missing one is waited for longer: on a loaded machine a run
  // can finish (and so land in the ledger) seconds after its slot. Nine daemons on two busy cores
  // once landed an owner's run more than 5 s late (gossip-nine A0: every other node's skip was in);
  // the wait ends as soon as nothing is missing, so it costs only when a run is late.
  const report = await ledgerWindow(fleet, jobs, fromMs, toMs, (opts.maxMissing ?? 0) === 0 ? 10_000 : 1800);
  expect(report.expected).toBeGreaterThan(0);
  expect(
    report.duplicates,
    `slots that ran on more than one node: ${JSON.stringify(report.duplicates)}`,
  ).toEqual([]);
  if ((opts.maxMissing ?? 0) === 0)
    expect(report.missing, `slots that ran nowhere: ${JSON.stringify(report.missing)}`).toEqual([]);
  else expect(report.missing.length, JSON.stringify(report.missing)).toBeLessThanOrEqual(opts.maxMissing!);
  return report;
}

/** Runs of `job` in the window per node, from the ledger. */
export function runsPerNode(fleet: Fleet, job: string, fromMs: number, toMs: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of readRuns(fleet.stateDir, { ns: fleet.shape.deploymentId, jobs: [job] })) {
    if (r.scheduledAt === null || r.scheduledAt < fromMs || r.scheduledAt > toMs) continue;
    if (!['success', 'failure', 'cancelled', 'unknown'].includes(r.outcome)) continue;
    out[r.node] = (out[r.node] ?? 0) + 1;
  }
  return out;
}

/** Waits for a condition over every running node's `/cluster`. */
export async function waitViews(
  fleet: Fleet,
  label: string,
  ok: (views: Awaited<ReturnType<Fleet['views']>>) => boolean,
  timeoutMs = 15_000,
  nodes?: FleetNode[],
): Promise<void> {
  await waitUntil(async () => ok(await fleet.views(nodes)), { timeoutMs, label });
}

export { Fleet, type FleetNode };

/** The owner spec 05 §6.1 gives `job` among `members` (node names). */
export function expectedOwner(job: string, members: string[]): string {
  return rendezvousOwner(job, members)!;
}

/**
 * Waits until every node in `nodes` reports, on `/jobs`, the rendezvous owner over `members`
 * as `clusterOwner` of each of `jobs` (null members: no quorum, owner null).
 */
export async function waitOwners(
  nodes: FleetNode[],
  jobs: string[],
  members: string[] | null,
  timeoutMs = 15_000,
): Promise<Record<string, string | null>> {
  const want = Object.fromEntries(jobs.map((j) => [j, members ? expectedOwner(j, members) : null]));
  let last: unknown = null;
  try {
    await waitUntil(
      async () => {
        for (const n of nodes) {
          const js = await n.jobs();
          const got = Object.fromEntries(jobs.map((j) => [j, js[j]?.clusterOwner]));
          last = { node: n.id, got };
          for (const j of jobs) if (got[j] !== want[j]) return false;
        }
        return true;
      },
      { timeoutMs, label: `owners ${JSON.stringify(want)}` },
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last seen ${JSON.stringify(last)}`);
  }
  return want;
}

/** Slots of an EveryNode job in the window, each with the sorted nodes that ran it. */
export async function everyNodeSlots(
  fleet: Fleet,
  job: string,
  fromMs: number,
  toMs: number,
): Promise<string[][]> {
  await sleep(Math.max(0, toMs + 1500 - Date.now()));
  const rows = readRuns(fleet.stateDir, { ns: fleet.shape.deploymentId, jobs: [job] });
  return [...tallySlots(rows, [job], fromMs, toMs).values()].map((t) => t.ranOn.sort());
}

/** Every slot of `jobs` in the window ran somewhere (PreferLeader never skips; it may run twice). */
export async function expectEverySlotRan(
  fleet: Fleet,
  jobs: string[],
  fromMs: number,
  toMs: number,
): Promise<ExactlyOnceReport> {
  const report = await ledgerWindow(fleet, jobs, fromMs, toMs, 5000);
  expect(report.expected).toBeGreaterThan(0);
  expect(report.missing, `slots that ran nowhere: ${JSON.stringify(report.missing)}`).toEqual([]);
  return report;
}

/** Runs the README's "Run a fleet" duplicate-slot query on the fleet's shared ledger. */
export function readmeDuplicates(fleet: Fleet): { job: string; scheduled_at: string; nodes: string }[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Run a fleet'));
  const sql = /```sql\n([\s\S]*?)```/.exec(section)![1]!;
  const db = new Database(join(fleet.stateDir, 'cronstable.db'), { readonly: true });
  try {
    return db.prepare(sql).all() as { job: string; scheduled_at: string; nodes: string }[];
  } finally {
    db.close();
  }
}
