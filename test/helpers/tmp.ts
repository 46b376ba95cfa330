import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const made: string[] = [];
const madeForFile: string[] = [];

/**
 * Writes a tree of files into a fresh temp directory, removed after the current test
 * (or, with `untilFileEnds`, after the whole test file: for beforeAll fixtures).
 */
export function writeTree(files: Record<string, string>, untilFileEnds = false): string {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-test-'));
  (untilFileEnds ? madeForFile : made).push(dir);
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return dir;
}

/** After each test: the directories it made (hooked up per file by test/helpers/file-setup.ts). */
export function removeTestTrees(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** After each file: the directories its beforeAll fixtures made. */
export function removeFileTrees(): void {
  for (const d of madeForFile.splice(0)) rmSync(d, { recursive: true, force: true });
}
