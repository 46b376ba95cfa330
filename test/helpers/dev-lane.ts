// Both projects' global setup: while the program under test runs from its .ts sources, store
// lane workers start on the built lane bundle when the build is current (`npm test` builds first),
// instead of booting tsx and a loader-hooks thread of their own in every worker. Forks and worker
// threads inherit the variable; a stale or missing build leaves it unset (lanes boot from sources).
import { DEV_LANE_ENTRY_ENV, LANE_BUNDLE } from '../../src/store/index.ts';
import { freshBuild } from './built.ts';

export default function setup(): void {
  const lane = freshBuild(LANE_BUNDLE);
  if (lane) process.env[DEV_LANE_ENTRY_ENV] = lane;
  else delete process.env[DEV_LANE_ENTRY_ENV];
}
