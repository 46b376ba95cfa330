// The V8 settings the daemon and `cronstable tui` give themselves at start (src/util/heap.ts): applied in a real Node
// process (a child, so this test's own isolate keeps its settings), and left alone when asked to.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tuneHeap, V8_DEFAULTS_ENV } from '../../src/util/heap.ts';

const HEAP = join(import.meta.dirname, '..', '..', 'src', 'util', 'heap.ts');

function inChild(env: Record<string, string>): string {
  const script = `import { tuneHeap } from ${JSON.stringify(HEAP)};
const applied = tuneHeap();
const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
new WebAssembly.Module(bytes);
process.stdout.write(String(applied));`;
  const childEnv = { ...process.env, ...env };
  if (!(V8_DEFAULTS_ENV in env)) delete childEnv[V8_DEFAULTS_ENV];
  return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: childEnv,
    encoding: 'utf8',
  });
}

describe('tuneHeap', () => {
  it('applies its flags in a Node process, which then still compiles WebAssembly', () => {
    expect(inChild({})).toBe('true');
  });

  it('leaves V8 its defaults when the debug variable asks for them', () => {
    expect(tuneHeap({ [V8_DEFAULTS_ENV]: '1' })).toBe(false);
    expect(inChild({ [V8_DEFAULTS_ENV]: '1' })).toBe('false');
  });
});
