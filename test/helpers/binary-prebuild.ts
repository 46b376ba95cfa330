// The system project's global setup: when the run includes a file that needs the Bun binary and the
// binary is stale (a clean clone; `npm test`'s own build made the bundle newer), its build starts
// at once in the background. All global setups run before the unit group, which keeps two threads
// on two cores busy only part of the time: the 10-20 CPU-s of the build then run in that slack
// instead of inside a system file, where every core is taken. The files find the binary current,
// or wait on the build's lock (test/helpers/standalone-binary.ts). Stopped if the run ends first.
import type { TestProject } from 'vitest/node';
import { BINARY_FILES, prebuildBinary } from './standalone-binary.ts';

/** Whether the run's file filters (none: every file) take in a file that needs the binary. */
function needed(project: TestProject): boolean {
  // vitest keeps the command line's file filters here; absent, the whole project runs.
  const filters = (project.vitest as { filenamePattern?: string[] }).filenamePattern;
  return !filters || filters.some((f) => BINARY_FILES.some((file) => file.includes(f.replace(/^\.\//, ''))));
}

export default function setup(project: TestProject): () => void {
  const build = needed(project) ? prebuildBinary() : null;
  return () => {
    if (build?.pid && build.exitCode === null && build.signalCode === null) {
      try {
        process.kill(-build.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  };
}
