// Test fixtures that run as processes of their own (store contenders, lease contenders, the
// light-wire apps) start from an esbuild bundle instead of through tsx: tsx transpiles every
// module a child imports, about 1.5 CPU-s a start on the CI machine against 0.5 s from a bundle,
// and some tests start nine at once. One bundle per fixture, rebuilt when a file under src/ or
// the test helpers is newer; it lives in .tmp/ (git-ignored) so `../package.json` still resolves.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { buildSync } from 'esbuild';
import { newestUnder, ROOT } from './built.ts';

const OUT_DIR = join(ROOT, '.tmp');

let sourcesMtime: number | null = null;

/**
 * The bundle's own entry: a worker thread the fixture's store starts from the bundle runs the
 * same worker tasks src/main.ts routes (a bundle is its own worker entry, src/store/lanes.ts);
 * any other start runs the fixture.
 */
function entrySource(file: string): string {
  const lanes = JSON.stringify(join(ROOT, 'src/store/lane.ts'));
  const config = JSON.stringify(join(ROOT, 'src/config/isolated.ts'));
  return `import { isMainThread, parentPort, workerData } from 'node:worker_threads';
const task = !isMainThread && parentPort ? workerData?.task : undefined;
if (task === 'cronstable:store-lane') {
  const { runStoreLane } = await import(${lanes});
  runStoreLane(workerData, parentPort);
} else if (task === 'cronstable:load-config') {
  const { runConfigWorker } = await import(${config});
  runConfigWorker(workerData, (reply) => parentPort.postMessage(reply));
} else {
  await import(${JSON.stringify(file)});
}
`;
}

/** The path of an up-to-date bundle of `file` (an absolute .ts path), built if need be. */
export function fixtureBundle(file: string): string {
  sourcesMtime ??= Math.max(
    ...['src', 'test/helpers', 'test/integration/fixtures'].map((d) => newestUnder(join(ROOT, d))),
  );
  const tag = createHash('sha256').update(relative(ROOT, file)).digest('hex').slice(0, 8);
  const out = join(OUT_DIR, `fixture-${basename(file, '.ts')}-${tag}.mjs`);
  if (existsSync(out) && statSync(out).mtimeMs >= sourcesMtime) return out;
  mkdirSync(OUT_DIR, { recursive: true });
  // Two vitest workers may build the same fixture at once: each writes its own file and
  // renames it into place, so a reader never sees half a bundle.
  const tmp = `${out}.${process.pid}.tmp`;
  buildSync({
    stdin: { contents: entrySource(file), resolveDir: ROOT, sourcefile: 'fixture-entry.ts', loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: tmp,
    logLevel: 'error',
  });
  renameSync(tmp, out);
  return out;
}

/** The node arguments that run `file`: its bundle, or the source through tsx if bundling fails. */
export function fixtureArgs(file: string): string[] {
  try {
    return [fixtureBundle(file)];
  } catch (e) {
    process.stderr.write(
      `fixture bundle of ${file} failed, running it through tsx: ${(e as Error).message}\n`,
    );
    return ['--import', 'tsx', file];
  }
}
