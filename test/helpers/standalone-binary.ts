// The Bun standalone binary, built once per build of the sources: the CLI, package, binary-lanes
// and bonjour tests need it, and each build costs 10-20 s. Built as `npm run build:binary` builds it
// (scripts/build-binary.mjs) into dist/cronstable; a file running beside another waits for the
// other's build instead of racing it (a lock directory, as scripts/runtimes.mjs does), and so does
// a file that finds the build the run started in the background (`prebuildBinary`).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { freshBuild, ROOT } from './built.ts';

export const BINARY = join(ROOT, 'dist', 'cronstable');
const LOCK = join(ROOT, 'dist', '.binary-building');
const STALE_LOCK_MS = 5 * 60_000;

/** The test files that call standaloneBinary(). */
export const BINARY_FILES = [
  'test/integration/cli.test.ts',
  'test/integration/package.test.ts',
  'test/integration/binary-lanes.test.ts',
  'test/integration/bonjour-netns.test.ts',
] as const;

/** `node` and these arguments, in ROOT, build the binary as `npm run build:binary` does. */
const BUILD_ARGS = [join(ROOT, 'scripts', 'build-binary.mjs'), BINARY];
const releaseLock = () => rmSync(LOCK, { recursive: true, force: true });

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Whether dist/cronstable was built from the current bundle (itself newer than src/). */
function current(): boolean {
  const bundle = freshBuild('cronstable.mjs');
  return bundle !== null && existsSync(BINARY) && statSync(BINARY).mtimeMs >= statSync(bundle).mtimeMs;
}

/**
 * Starts building the binary in a background process under the lock, when the bundle is current,
 * the binary is not, and no one else is building it; null otherwise. The lock goes when the build
 * ends. A failed build leaves the binary stale: the first standaloneBinary() call builds it again
 * in the foreground and reports why.
 */
export function prebuildBinary(): ChildProcess | null {
  if (current() || !freshBuild('cronstable.mjs')) return null;
  try {
    mkdirSync(LOCK);
  } catch {
    return null;
  }
  // Its own process group, so stopping it stops the compiler and the training daemon it runs too.
  const child = spawn(process.execPath, BUILD_ARGS, { cwd: ROOT, stdio: 'ignore', detached: true });
  child.once('exit', releaseLock);
  child.once('error', releaseLock);
  return child;
}

/**
 * The path of an up-to-date standalone binary; throws with the build's output when it fails. While
 * another file or the background build holds the lock, it waits: a build in progress writes
 * dist/cronstable before it is done with it.
 */
export function standaloneBinary(): string {
  const deadline = Date.now() + STALE_LOCK_MS;
  for (;;) {
    let mine = false;
    try {
      mkdirSync(LOCK);
      mine = true;
    } catch {
      if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) releaseLock();
    }
    if (mine) {
      try {
        if (current()) return BINARY;
        if (!freshBuild('cronstable.mjs')) {
          const b = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
          if (b.status !== 0) throw new Error(`npm run build failed:\n${b.stderr}`);
        }
        const r = spawnSync(process.execPath, BUILD_ARGS, {
          cwd: ROOT,
          encoding: 'utf8',
          timeout: 180_000,
        });
        if (r.status !== 0)
          throw new Error(`scripts/build-binary.mjs failed (exit ${r.status}):\n${r.stderr}`);
        return BINARY;
      } finally {
        releaseLock();
      }
    }
    if (Date.now() > deadline) throw new Error('timed out waiting for another build of the binary');
    sleep(250);
  }
}
