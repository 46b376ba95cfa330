import { describe, expect, it } from 'vitest';
import { canonicalJson, jobSetId } from '../../src/cluster/jobset.ts';

describe('job-set id (spec 05 §4)', () => {
  it('matches the empty-set vector', () => {
    expect(jobSetId([])).toBe('v1:2d27fbdf4e8ca207afbfa388ca9172fbcc6c70e534af2476b3b704f87debadcf');
  });

  it('serialises canonically: sorted keys, no spaces, ASCII only', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'é'], c: { z: 2.5, y: 'x' } })).toBe(
      '{"a":[true,null,"\\u00e9"],"b":1,"c":{"y":"x","z":2.5}}',
    );
  });
});

import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.ts';
import { writeTree } from '../helpers/tmp.ts';

function idOf(yaml: string): string {
  const dir = writeTree({ 'c.yaml': yaml });
  return jobSetId(loadConfig(join(dir, 'c.yaml'), { nowMs: 0 }).jobs);
}

describe('job-set id over loaded configs', () => {
  const base = (extra = '', schedule = '"*/5 * * * *"') =>
    `jobs:\n  - name: alpha\n    command: echo alpha\n    schedule: ${schedule}\n${extra}`;

  it('is the same for the same effective config, whatever the spelling', () => {
    expect(idOf(base())).toBe(idOf(base('', '"  */5  * * * *"')));
    expect(idOf(base())).toBe(idOf(`defaults:\n  shell: /bin/sh\n${base()}`));
  });

  it('ignores environment values and catch-up settings but not names or behaviour', () => {
    const env = (v: string) => base(`    environment:\n      - key: A\n        value: ${v}\n`);
    expect(idOf(env('1'))).toBe(idOf(env('2')));
    expect(idOf(base('    onMissed: run-all\n'))).toBe(idOf(base()));
    expect(idOf(base('    concurrencyPolicy: Forbid\n'))).not.toBe(idOf(base()));
    expect(idOf(base('', '"*/10 * * * *"'))).not.toBe(idOf(base()));
  });

  it('redacts literal secrets and webhook header values', () => {
    const hook = (token: string) =>
      base(
        `    onFailure:\n      report:\n        webhook:\n          url:\n            value: http://x/${token}\n          headers:\n            Authorization: Bearer ${token}\n`,
      );
    expect(idOf(hook('one'))).toBe(idOf(hook('two')));
  });
});
