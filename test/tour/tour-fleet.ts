// The tour tests' fleet: the grand tour itself (example/grand-tour through scripts/tour's
// `startTour`, each node's config dir assembled by the example's node-entrypoint.sh) with the
// cluster tests' short timings, started once per test file and removed after it. `fast` re-times
// named jobs of the tour (only their schedule: command, policy and everything else stay the
// tour's) so a scenario sees several firings in seconds instead of minutes.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { isMap, isSeq, parseDocument } from 'yaml';
import { EXAMPLE_DIR, startTour, type Tour, type TourOptions } from '../../scripts/tour/tour.ts';

/**
 * The tour jobs the scenarios watch fire every few seconds instead of every minute or more: the
 * durable counter (a `Leader` job), orders-ingest (a `PreferLeader` one) and the nightly-close
 * DAG (a `Leader` linear pipeline of three echoes, the lightest of the five DAGs).
 */
export const FAST: Record<string, string> = {
  'platform-pulse-counter': '*/3 * * * * * *',
  'orders-ingest': '*/3 * * * * * *',
  'nightly-close': '*/4 * * * * * *',
};

/** `platform.yaml` with the schedules of the jobs and DAGs named in `fast` replaced (comments and the rest kept). */
export function retimed(text: string, fast: Record<string, string>): string {
  const doc = parseDocument(text);
  const seen = new Set<string>();
  for (const section of ['jobs', 'dags']) {
    const list = doc.get(section);
    if (!isSeq(list)) throw new Error(`platform.yaml has no ${section} list`);
    for (const item of list.items) {
      if (!isMap(item)) continue;
      const name = String(item.get('name'));
      if (name in fast) {
        item.set('schedule', fast[name]);
        seen.add(name);
      }
    }
  }
  const missing = Object.keys(fast).filter((n) => !seen.has(n));
  if (missing.length > 0) throw new Error(`not in the tour: ${missing.join(', ')}`);
  return doc.toString();
}

export interface TourTestOptions extends Pick<TourOptions, 'nodes' | 'backend' | 'distribution'> {
  webToken?: string;
  fast?: Record<string, string>;
  /** Extra environment of every node (the daemon's test hooks). */
  env?: Record<string, string>;
}

/** What the tests read beside the tour: the store namespace and the example's platform.yaml. */
export interface TourHandle {
  tour: Tour;
  readonly fleet: Tour['fleet'];
  readonly nodes: Tour['nodes'];
  readonly stateDir: string;
  /** The ledger namespace (platform.yaml's `state.deploymentId`). */
  readonly ns: string;
  readonly root: string;
}

/** The file's tour: started (not yet converged) in beforeAll, stopped and removed in afterAll. */
export function useTour(opts: TourTestOptions): TourHandle {
  let source: string | null = null;
  const handle: TourHandle = {
    tour: null as unknown as Tour,
    get fleet() {
      return handle.tour.fleet;
    },
    get nodes() {
      return handle.tour.nodes;
    },
    get stateDir() {
      return handle.tour.stateDir;
    },
    get ns() {
      return handle.tour.deploymentId;
    },
    get root() {
      return handle.tour.dir;
    },
  };
  beforeAll(async () => {
    if (opts.fast) {
      // A copy of the example with only the named schedules changed.
      source = mkdtempSync(join(tmpdir(), 'cronstable-tour-src-'));
      cpSync(EXAMPLE_DIR, source, { recursive: true });
      const file = join(source, 'platform.yaml');
      writeFileSync(file, retimed(readFileSync(file, 'utf8'), opts.fast));
    }
    handle.tour = await startTour({
      nodes: opts.nodes,
      backend: opts.backend,
      distribution: opts.distribution,
      webToken: opts.webToken ?? null,
      ports: 'free',
      // The reporters' sinks are not under test here (test/integration/tour-sinks covers them):
      // the nodes' reporters fail fast against closed loopback ports.
      sinks: false,
      shutdownTimeout: 2,
      ...(source ? { source } : {}),
      ...(opts.env ? { env: opts.env } : {}),
    });
  }, 90_000);
  afterAll(async () => {
    await handle.tour?.stop();
    if (source) rmSync(source, { recursive: true, force: true });
  }, 60_000);
  return handle;
}
