// Spec 09 §9.6, vector 45: `cronstable init` writes a starter that `-v` accepts and refuses a file
// or a live configuration directory.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTree } from '../helpers/tmp.ts';

const MAIN = join(import.meta.dirname, '..', '..', 'src', 'main.ts');
const cli = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    encoding: 'utf8',
    cwd: join(import.meta.dirname, '..', '..'),
  });

describe('cronstable init', () => {
  it('v45: writes a starter that validates, then refuses a live directory and a file', () => {
    const t = writeTree({ 'hosts.txt': 'x\n' }, true);
    const target = join(t, 'i');
    const first = cli('init', target);
    expect(first.status).toBe(0);
    expect(first.stdout).toBe(
      `wrote ${target}/cronstable.yaml\nstart the scheduler with: cronstable -c ${target}\n`,
    );
    expect(readFileSync(join(target, 'cronstable.yaml'), 'utf8')).toContain(
      'echo "hello from cronstable on $(hostname)"',
    );
    const valid = cli('-c', target, '-v');
    expect(valid.status).toBe(0);
    expect(valid.stderr).toContain('Configuration is valid.');

    const again = cli('init', target);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(
      `cronstable init: ${target} already holds configuration (cronstable.yaml); refusing to add a starter to a live setup`,
    );
    const file = cli('init', join(t, 'hosts.txt'));
    expect(file.status).toBe(1);
    expect(file.stderr).toContain(
      `cronstable init: ${join(t, 'hosts.txt')} is a file; init writes a starter file`,
    );

    const other = join(t, 'other');
    const both = cli('-c', join(t, 'elsewhere'), 'init', other);
    expect(both.status).toBe(0);
    expect(both.stderr).toContain(
      `cronstable init: -c ${join(t, 'elsewhere')} and DIRECTORY ${other} disagree; writing to ${other}`,
    );
  });
});
