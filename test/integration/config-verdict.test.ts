// Issue 14 item 3: `-v`, `--job-set-id`, `state check` and the daemon give the same verdict on the
// same file: each refuses a bad config with exit 1 and the same located error, and none of them
// blocks or balloons on a hostile one.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTree } from '../helpers/tmp.ts';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'cronstable.mjs');
const VERBS: string[][] = [['-v'], ['--job-set-id'], ['state', 'check'], []];

const BAD: Record<string, string> = {
  'a non-finite duration':
    'jobs:\n  - name: a\n    command: x\n    schedule: "* * * * *"\n    killTimeout: .nan\n',
  'a blank job list': 'jobs:\n',
  'a control character in a name':
    'jobs:\n  - name: "a\\u0007b"\n    command: x\n    schedule: "* * * * *"\n',
  'nesting past the cap': `jobs:\n  - name: a\n    command: x\n    schedule: "* * * * *"\n    environment: ${'['.repeat(200)}${']'.repeat(200)}\n`,
  'an include of a device': 'include:\n  - /dev/zero\njobs: []\n',
};

describe('every verb gives the same verdict on the same config file', () => {
  for (const [what, text] of Object.entries(BAD))
    it(`refuses ${what} with exit 1 and the same located error`, () => {
      const dir = writeTree({}, true);
      const file = join(dir, 'bad.yaml');
      writeFileSync(file, text);
      const errors = VERBS.map((verb) => {
        const r = spawnSync(process.execPath, [BUNDLE, '-c', file, ...verb], {
          cwd: dir,
          encoding: 'utf8',
          timeout: 20_000,
        });
        expect([verb.join(' ') || 'daemon', r.status]).toEqual([verb.join(' ') || 'daemon', 1]);
        // The first located error line, whatever prefix the verb gives it.
        const line = `${r.stdout}${r.stderr}`.split('\n').find((l) => l.includes(`${file}:`)) ?? '';
        return line.slice(line.indexOf(file));
      });
      expect(errors[0]).toMatch(/bad\.yaml:\d+:\d+: /);
      expect(new Set(errors).size).toBe(1);
    });
});
