// The README's map of src/ ("Where the code lives") and docs/architecture.md name the tree as it is: every
// folder under src/ once, no folder that is gone, in the layer order the check enforces.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

/** The folders (and main.ts) directly under src/. */
const tree = readdirSync(join(root, 'src'), { withFileTypes: true })
  .filter((e) => e.isDirectory() || e.name === 'main.ts')
  .map((e) => e.name)
  .sort();

/** The layers block of docs/architecture.md: a list of lines, each a list of folders. */
function layers(): string[][] {
  const m = /```layers\n([\s\S]*?)```/.exec(read('docs/architecture.md'));
  if (!m) throw new Error('docs/architecture.md has no layers block');
  return m[1]!
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => l.split(/\s+/));
}

/** The README table's folder column, row by row. */
function readmeRows(): string[][] {
  const text = read('README.md');
  const at = text.indexOf('### Where the code lives');
  expect(at, 'README has a "Where the code lives" section').toBeGreaterThan(0);
  const section = text.slice(at, text.indexOf('\n#', at + 10));
  return section
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| layer') && !l.startsWith('| ---'))
    .map((l) => [...l.split('|')[2]!.matchAll(/`([^`]+?)\/?`/g)].map((m) => m[1]!));
}

describe('the map of src/', () => {
  it('docs/architecture.md places every top folder of src/ exactly once', () => {
    const top = layers()
      .flat()
      .filter((f) => !f.includes('/'));
    expect([...top].sort()).toEqual(tree);
  });

  it('docs/architecture.md has a paragraph for every folder', () => {
    const doc = read('docs/architecture.md');
    for (const f of tree) expect(doc, f).toContain(f === 'main.ts' ? '**`main.ts`**' : `**\`${f}/\`**`);
  });

  it('the README table lists the same folders in the same layer order', () => {
    const rows = readmeRows();
    const top = layers().map((line) => line.filter((f) => !f.includes('/')));
    expect(rows).toEqual(top);
  });
});
