// The fleet view's matrix (spec 06 §9.2, spec 05 §11): jobs × nodes from `/fleet`, each cell the job's state on
// that node as the node last gossiped it. Pure.
import { formatAge, parseIso } from './format.ts';
import type { ApiFleet, ApiFleetNode, ApiJobSummary } from './types.ts';

export type FleetTone = 'ok' | 'fail' | 'run' | 'off' | 'idle' | 'none';

export interface FleetCell {
  text: string;
  tone: FleetTone;
  /** age of the last finish, e.g. `2m`; empty when none */
  age: string;
}

/** Every job name any node reports, sorted. */
export function fleetJobNames(fleet: ApiFleet): string[] {
  const names = new Set<string>();
  for (const n of fleet.nodes) for (const name of Object.keys(n.jobs ?? {})) names.add(name);
  return [...names].sort();
}

/** One cell: running, off (disabled), the last outcome with its age, idle (never ran), or absent on that node. */
export function fleetCell(s: ApiJobSummary | undefined, now: number): FleetCell {
  if (s === undefined) return { text: '·', tone: 'none', age: '' };
  if (s.running) return { text: 'running', tone: 'run', age: '' };
  if (!s.enabled) return { text: 'off', tone: 'off', age: '' };
  if (s.last === null) return { text: '○', tone: 'idle', age: '' };
  const at = parseIso(s.last.finished_at);
  const age = at === null ? '' : formatAge(now - at).replace(/ ago$/, '');
  if (s.last.outcome === 'success') return { text: 'ok', tone: 'ok', age };
  if (s.last.outcome === 'failure') return { text: 'failure', tone: 'fail', age };
  return { text: s.last.outcome, tone: 'off', age };
}

/** The node column head's status: `this node · live` for the serving node, else `<status> · <age> ago`. */
export function fleetNodeStatus(n: ApiFleetNode, now: number): string {
  if (n.self) return 'this node · live';
  const at = parseIso(n.as_of);
  return at === null ? n.status : `${n.status} · ${formatAge(now - at)}`;
}

export interface FleetTotals {
  nodes: number;
  jobs: number;
  running: number;
  failing: number;
}

/** Counts over every (node, job) cell: how many run right now and how many last failed. */
export function fleetTotals(fleet: ApiFleet): FleetTotals {
  let running = 0;
  let failing = 0;
  for (const n of fleet.nodes) {
    for (const s of Object.values(n.jobs ?? {})) {
      if (s.running) running++;
      else if (s.last?.outcome === 'failure') failing++;
    }
  }
  return { nodes: fleet.nodes.length, jobs: fleetJobNames(fleet).length, running, failing };
}

/** Whether the job last failed (and is not running) on any node: the "failing only" filter. */
export function failingSomewhere(fleet: ApiFleet, job: string): boolean {
  return fleet.nodes.some((n) => {
    const s = n.jobs?.[job];
    return s !== undefined && !s.running && s.last?.outcome === 'failure';
  });
}
