// DESIGN.md §3: config and util are bottom layers. util imports no other module of src/, and
// config reaches only the other bottom layers it needs (util, schedule), type imports included.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

function importedModules(dir: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const name of readdirSync(join(SRC, dir))) {
    if (!name.endsWith('.ts')) continue;
    const text = readFileSync(join(SRC, dir, name), 'utf8');
    const targets = [...text.matchAll(/from\s+'\.\.\/([a-z-]+)\//g)].map((m) => m[1]!);
    out.set(`${dir}/${name}`, targets);
  }
  return out;
}

describe('module layering', () => {
  it('util imports nothing from the other modules of src/', () => {
    const offenders = [...importedModules('util')].filter(([, targets]) => targets.length > 0);
    expect(offenders).toEqual([]);
  });

  it('config imports only util and schedule', () => {
    const offenders = [...importedModules('config')].filter(([, targets]) =>
      targets.some((t) => t !== 'util' && t !== 'schedule'),
    );
    expect(offenders).toEqual([]);
  });
});
