// The tour tests' fleet: the grand tour's real job set (example/grand-tour/platform.yaml, its
// defaults, crontab, env file and secrets) on a local fleet with the cluster tests' short timings,
// started once per test file and removed after it. `fast` re-times named jobs of the tour (only
// their schedule: command, policy and everything else stay the tour's) so a scenario sees several
// firings in seconds instead of minutes.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { isMap, isSeq, parseDocument } from 'yaml';
import type { Fleet, FleetNode } from '../../scripts/fleet/fleet.ts';
import { SHORT, startFleet } from '../cluster/harness.ts';
import { BUNDLE } from './helpers.ts';

const ROOT = join(import.meta.dirname, '..', '..');
/** Where the tour lives (the fixture until example/grand-tour lands). */
export const TOUR_DIR = existsSync(join(ROOT, 'example', 'grand-tour', 'platform.yaml'))
  ? join(ROOT, 'example', 'grand-tour')
  : join(ROOT, 'test', 'fixtures', 'grand-tour');

/**
 * The tour jobs the scenarios watch fire, every 3 s instead of every few minutes: the durable
 * counter (a `Leader` job) and orders-ingest (a `PreferLeader` one).
 */
export const FAST: Record<string, string> = {
  'platform-pulse-counter': '*/3 * * * * * *',
  'orders-ingest': '*/3 * * * * * *',
};

/** `platform.yaml` with the schedules of `fast` replaced (comments and the rest kept). */
export function retimed(text: string, fast: Record<string, string>): string {
  const doc = parseDocument(text);
  const jobs = doc.get('jobs');
  if (!isSeq(jobs)) throw new Error('platform.yaml has no jobs list');
  const seen = new Set<string>();
  for (const item of jobs.items) {
    if (!isMap(item)) continue;
    const name = String(item.get('name'));
    if (name in fast) {
      item.set('schedule', fast[name]);
      seen.add(name);
    }
  }
  const missing = Object.keys(fast).filter((n) => !seen.has(n));
  if (missing.length > 0) throw new Error(`not in the tour: ${missing.join(', ')}`);
  return doc.toString();
}

export interface TourOptions {
  nodes: number;
  backend: 'gossip' | 'filesystem';
  distribution: 'spread' | 'single-leader';
  webToken?: string;
  fast?: Record<string, string>;
  ttl?: number;
}

export interface TourHandle {
  fleet: Fleet;
  nodes: FleetNode[];
  /** The shared state directory (`cronstable.db` inside). */
  stateDir: string;
  /** The store namespace the tour's rows live in (its `deploymentId`). */
  ns: string;
  root: string;
  /** The tour's platform.yaml as the nodes load it. */
  platformFile: string;
}

/** The file's tour fleet: started (not yet converged) in beforeAll, removed in afterAll. */
export function useTour(opts: TourOptions): TourHandle {
  const handle = {
    fleet: null as unknown as Fleet,
    get nodes() {
      return handle.fleet.nodes;
    },
    get stateDir() {
      return handle.fleet.stateDir;
    },
    ns: 'meridian-prod',
    get root() {
      return handle.fleet.root;
    },
    platformFile: join(TOUR_DIR, 'platform.yaml'),
  };
  beforeAll(async () => {
    const platform = retimed(readFileSync(join(TOUR_DIR, 'platform.yaml'), 'utf8'), opts.fast ?? {});
    const doc = parseDocument(platform);
    for (const k of ['include', 'state', 'web']) doc.delete(k);
    const defaults = parseDocument(readFileSync(join(TOUR_DIR, '_defaults.yaml'), 'utf8'));
    doc.set('defaults', defaults.get('defaults'));
    const jobsYaml = doc
      .toString()
      .replaceAll('http://127.0.0.1:8080', '${CRONSTABLE_URL}')
      .replace('env_file: platform.env', `env_file: ${join(TOUR_DIR, 'platform.env')}`);
    const { fleet } = await startFleet({
      nodes: opts.nodes,
      backend: opts.backend,
      distribution: opts.distribution,
      timings: { ...SHORT, ...(opts.ttl ? { ttl: opts.ttl } : {}) },
      jobsYaml,
      deploymentId: 'meridian-prod',
      start: false,
      env: {},
    });
    handle.fleet = fleet;
    // The jobs call `cronstable`: put the built CLI on their PATH.
    const bin = join(fleet.root, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'cronstable'), `#!/bin/sh\nexec "${process.execPath}" "${BUNDLE}" "$@"\n`, {
      mode: 0o755,
    });
    const env = fleet.opts.env!;
    env.PATH = `${bin}:${process.env.PATH}`;
    for (const n of fleet.nodes) {
      // Each node's own URL (the spawn reads the env synchronously).
      env.CRONSTABLE_URL = n.url;
      void n.start({ wait: false });
    }
    await Promise.all(fleet.nodes.map((n) => n.ready()));
  }, 90_000);
  afterAll(async () => {
    await handle.fleet?.close();
  }, 60_000);
  return handle;
}
