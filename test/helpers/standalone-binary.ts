// The Bun standalone binary, built once per build of the sources: the CLI test and the package
// test both need it, and each build costs 10-20 s. Built as `npm run build:binary` builds it
// (scripts/build-binary.mjs) into dist/cronstable; a file running beside another waits for the
// other's build instead of racing it (a lock directory, as scripts/runtimes.mjs does).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { freshBuild, ROOT } from './built.ts';

export const BINARY = join(ROOT, 'dist', 'cronstable');
const LOCK = join(ROOT, 'dist', '.binary-building');
const STALE_LOCK_MS = 5 * 60_000;

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Whether dist/cronstable was built from the current bundle (itself newer than src/). */
function current(): boolean {
  const bundle = freshBuild('cronstable.mjs');
  return bundle !== null && existsSync(BINARY) && statSync(BINARY).mtimeMs >= statSync(bundle).mtimeMs;
}

/** The path of an up-to-date standalone binary; throws with the build's output when it fails. */
export function standaloneBinary(): string {
  const deadline = Date.now() + STALE_LOCK_MS;
  while (!current()) {
    let mine = false;
    try {
      mkdirSync(LOCK);
      mine = true;
    } catch {
      if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS)
        rmSync(LOCK, { recursive: true, force: true });
    }
    if (mine) {
      try {
        if (current()) break;
        if (!freshBuild('cronstable.mjs')) {
          const b = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
          if (b.status !== 0) throw new Error(`npm run build failed:\n${b.stderr}`);
        }
        const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-binary.mjs'), BINARY], {
          cwd: ROOT,
          encoding: 'utf8',
          timeout: 180_000,
        });
        if (r.status !== 0)
          throw new Error(`scripts/build-binary.mjs failed (exit ${r.status}):\n${r.stderr}`);
        break;
      } finally {
        rmSync(LOCK, { recursive: true, force: true });
      }
    }
    if (Date.now() > deadline) throw new Error('timed out waiting for another build of the binary');
    sleep(250);
  }
  return BINARY;
}
