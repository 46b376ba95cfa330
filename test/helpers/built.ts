// Tests that start many processes or worker threads use the build when it is up to date
// (`npm test` builds first): a built entry starts several times faster than the sources through
// tsx. When the sources are newer (a developer running vitest straight after an edit), callers
// fall back to the sources, so a stale build is never what a test exercises.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The newest modification time (ms) of any file under `dir`. */
export function newestUnder(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestUnder(p) : statSync(p).mtimeMs);
  }
  return newest;
}

let sourcesMtime: number | null = null;

/** The absolute path of `dist/<file>` when it exists and is newer than every file under src/. */
export function freshBuild(file: string): string | null {
  const built = join(ROOT, 'dist', file);
  if (!existsSync(built)) return null;
  sourcesMtime ??= newestUnder(join(ROOT, 'src'));
  return statSync(built).mtimeMs >= sourcesMtime ? built : null;
}

/**
 * The arguments to `node` that start the program: the built bundle when it is up to date, else
 * the sources through tsx (several times the CPU per start, and more for a daemon's workers).
 */
export function programEntry(): string[] {
  const bundle = freshBuild('cronstable.mjs');
  // tsx resolved here: a program started in a temp directory would not find a bare `tsx`.
  return bundle ? [bundle] : ['--import', import.meta.resolve('tsx'), join(ROOT, 'src', 'main.ts')];
}
