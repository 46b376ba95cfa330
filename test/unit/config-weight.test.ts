// Which job sets the daemon parses in a worker thread (src/config/isolated.ts): the bytes of the
// files the loader will read, includes followed, measured without parsing YAML.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configWeight, WORKER_FROM_BYTES } from '../../src/config/isolated.ts';
import { writeTree } from '../helpers/tmp.ts';

const JOB = 'jobs:\n  - name: a\n    command: echo a\n    schedule: "* * * * *"\n';
const size = (p: string) => statSync(p).size;

describe('configWeight', () => {
  it('is the size of one file, and 0 for a path that cannot be read', () => {
    const dir = writeTree({ 'a.yaml': JOB });
    expect(configWeight(join(dir, 'a.yaml'))).toEqual({ bytes: JOB.length, unknown: false });
    expect(configWeight(join(dir, 'missing.yaml'))).toEqual({ bytes: 0, unknown: false });
  });

  it("counts a directory's loaded entries only, and what their includes name", () => {
    const dir = writeTree({
      'a.yaml': JOB,
      'b.YML': JOB,
      'legacy.crontab': '* * * * * echo hi\n',
      'README.md': 'x'.repeat(1000),
      '_defaults.yaml': 'defaults:\n  captureStderr: false\n',
      '.hidden.yaml': 'x'.repeat(1000),
    });
    const loaded = size(join(dir, 'a.yaml')) + size(join(dir, 'b.YML')) + size(join(dir, 'legacy.crontab'));
    expect(configWeight(dir)).toEqual({ bytes: loaded, unknown: false });
  });

  it('follows block-list includes, bare, quoted and commented, nested and cyclic, each file once', () => {
    const main = `# top\ninclude: # fragments\n  - _a.yaml\n\n  # the shared one\n  - "sub/_b.yaml"  # quoted\n  - '_a.yaml'\n${JOB}`;
    const dir = writeTree({
      'main.yaml': main,
      '_a.yaml': 'defaults:\n  captureStderr: false\n',
      'sub/_b.yaml': 'include:\n  - ../main.yaml\n  - _c.yaml\n',
      'sub/_c.yaml': JOB,
    });
    const all = ['main.yaml', '_a.yaml', 'sub/_b.yaml', 'sub/_c.yaml'].reduce(
      (n, f) => n + size(join(dir, f)),
      0,
    );
    expect(configWeight(join(dir, 'main.yaml'))).toEqual({ bytes: all, unknown: false });
  });

  it('never reads a device, FIFO or socket an include names (the loader refuses those itself)', () => {
    const dir = writeTree({ 'main.yaml': `include:\n  - /dev/zero\n${JOB}` });
    expect(configWeight(join(dir, 'main.yaml'))).toEqual({
      bytes: size(join(dir, 'main.yaml')),
      unknown: false,
    });
  });

  it('an include list it cannot read without parsing YAML is unknown (the worker is used)', () => {
    for (const list of ['include: [_a.yaml]\n', 'include:\n  - *anchor\n', 'include:\n  - {a: b}\n']) {
      const dir = writeTree({ 'main.yaml': `${list}${JOB}`, '_a.yaml': JOB });
      expect(configWeight(join(dir, 'main.yaml')).unknown).toBe(true);
    }
  });

  it('reaches the threshold through an included file, and the grand tour stays in-process', () => {
    const big = `${'# padding\n'.repeat(WORKER_FROM_BYTES / 10)}${JOB}`;
    const dir = writeTree({ 'main.yaml': `include:\n  - _big.yaml\n${JOB}`, '_big.yaml': big });
    expect(configWeight(join(dir, 'main.yaml')).bytes).toBeGreaterThanOrEqual(WORKER_FROM_BYTES);
    const tour = join(import.meta.dirname, '..', '..', 'example', 'grand-tour');
    const files = ['platform.yaml', '_defaults.yaml'].map((f) => size(join(tour, f)));
    const weight = configWeight(join(tour, 'platform.yaml'));
    expect(weight).toEqual({ bytes: files[0]! + files[1]!, unknown: false });
    expect(weight.bytes).toBeLessThan(WORKER_FROM_BYTES);
  });
});
