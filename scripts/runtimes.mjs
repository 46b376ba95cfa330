// The Bun and Deno runtimes live outside the project's dependencies (hundreds of MB a user's
// `npm install` should not pay for). The binary build, the Bun/Deno tests and benches ask for
// them here; the first caller installs the versions pinned in tools/runtimes/package-lock.json,
// and concurrent callers (parallel test files) wait for that one install instead of racing it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PREFIX = join(ROOT, 'tools', 'runtimes');
const BIN = join(PREFIX, 'node_modules', '.bin');
const LOCK = join(PREFIX, '.installing');
/** An install lock older than this was left by a killed install: take it over. */
const STALE_LOCK_MS = 10 * 60_000;

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function installed(name) {
  return existsSync(join(BIN, name));
}

function takeLock() {
  try {
    mkdirSync(LOCK);
    return true;
  } catch (e) {
    if (e.code !== 'EEXIST') throw e;
    try {
      if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
    } catch {
      // gone meanwhile: the next attempt decides
    }
    return false;
  }
}

/** Installs the pinned runtimes once (idempotent, safe across processes). */
export function ensureRuntimes() {
  const deadline = Date.now() + STALE_LOCK_MS;
  while (!(installed('bun') && installed('deno'))) {
    if (takeLock()) {
      try {
        if (installed('bun') && installed('deno')) return;
        const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
        const r = spawnSync(npm, ['ci', '--prefix', PREFIX, '--no-audit', '--no-fund'], {
          stdio: ['ignore', 'pipe', 'pipe'],
          encoding: 'utf8',
        });
        if (r.status !== 0)
          throw new Error(
            `installing the Bun and Deno runtimes (npm ci --prefix tools/runtimes) failed:\n${r.stderr}`,
          );
        return;
      } finally {
        rmSync(LOCK, { recursive: true, force: true });
      }
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for another process to install ${PREFIX}`);
    sleep(250);
  }
}

/** Absolute path of the `bun` or `deno` executable, installing the runtimes on first use. */
export function runtimeBin(name) {
  if (name !== 'bun' && name !== 'deno') throw new Error(`unknown runtime '${name}'`);
  ensureRuntimes();
  return join(BIN, name);
}

// `node scripts/runtimes.mjs [bun|deno] [args...]`: run a runtime, installing it first.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [name, ...args] = process.argv.slice(2);
  if (!name) {
    ensureRuntimes();
  } else {
    const r = spawnSync(runtimeBin(name), args, { stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
}
