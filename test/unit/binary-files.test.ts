// The background build of the Bun binary (test/helpers/binary-prebuild.ts) starts for a filtered
// run only when the filters take in one of BINARY_FILES: the list must name every test file that
// calls standaloneBinary(), or such a file would build the binary itself, inside its own time.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { BINARY_FILES } from '../helpers/standalone-binary.ts';

const ROOT = join(import.meta.dirname, '..', '..');

it('BINARY_FILES names exactly the test files that call standaloneBinary()', () => {
  const callers = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .filter((f) => readFileSync(join(ROOT, 'test', f), 'utf8').includes('standaloneBinary()'))
    .map((f) => relative(ROOT, join(ROOT, 'test', f)))
    .filter((f) => f !== 'test/unit/binary-files.test.ts')
    .sort();
  expect(callers).toEqual([...BINARY_FILES].sort());
});
