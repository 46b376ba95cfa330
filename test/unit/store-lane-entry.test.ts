// Where a store lane worker starts (src/store/index.ts laneEntry): the lane bundle beside the
// program when there is one, under its built name or the name `bun build --compile` gives it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LANE_BUNDLE, laneEntry } from '../../src/store/index.ts';

const dirs: string[] = [];
function dirWith(...files: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'lane-entry-'));
  dirs.push(dir);
  for (const f of files) writeFileSync(join(dir, f), '');
  return dir;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('laneEntry', () => {
  it('swaps a given program bundle for the lane bundle beside it, else keeps it', () => {
    const dir = dirWith('cronstable.mjs', LANE_BUNDLE);
    expect(laneEntry(join(dir, 'cronstable.mjs'))).toBe(join(dir, LANE_BUNDLE));
    const bare = dirWith('cronstable.mjs');
    expect(laneEntry(join(bare, 'cronstable.mjs'))).toBe(join(bare, 'cronstable.mjs'));
  });

  it('without an entry, finds the lane bundle beside the bundled module (the Bun binary names it .js)', () => {
    const built = dirWith('cronstable-chunk-ABC.mjs', LANE_BUNDLE);
    const here = pathToFileURL(join(built, 'cronstable-chunk-ABC.mjs')).href;
    expect(String(laneEntry(undefined, here))).toBe(pathToFileURL(join(built, LANE_BUNDLE)).href);
    const compiled = dirWith('cronstable-x1.js', 'cronstable-lane.js');
    const inBinary = pathToFileURL(join(compiled, 'cronstable-x1.js')).href;
    expect(String(laneEntry(undefined, inBinary))).toBe(
      pathToFileURL(join(compiled, 'cronstable-lane.js')).href,
    );
  });

  it('without an entry and no lane bundle, or from sources, leaves the choice to the worker starter', () => {
    const none = dirWith('cronstable-chunk-ABC.mjs');
    expect(laneEntry(undefined, pathToFileURL(join(none, 'cronstable-chunk-ABC.mjs')).href)).toBeUndefined();
    expect(laneEntry(undefined, pathToFileURL(join(none, 'index.ts')).href, '')).toBeUndefined();
  });

  it('from sources, takes the built lane bundle a development harness names, and only then', () => {
    const built = dirWith(LANE_BUNDLE);
    const fromSources = pathToFileURL(join(built, 'index.ts')).href;
    expect(laneEntry(undefined, fromSources, join(built, LANE_BUNDLE))).toBe(join(built, LANE_BUNDLE));
    expect(laneEntry(undefined, fromSources, '')).toBeUndefined();
    // A bundled program never reads it: its own lane bundle, or the entry it was given.
    const bundled = pathToFileURL(join(built, 'cronstable-chunk-ABC.mjs')).href;
    expect(String(laneEntry(undefined, bundled, '/elsewhere/lane.mjs'))).toBe(
      pathToFileURL(join(built, LANE_BUNDLE)).href,
    );
    expect(laneEntry('/opt/x/entry.js', fromSources, '/elsewhere/lane.mjs')).toBe('/opt/x/entry.js');
  });
});
