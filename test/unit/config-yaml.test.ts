import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { parseFloatText } from '../../src/config/validators.ts';
import { configErrorOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

const NOW = Date.parse('2026-01-07T12:00:00Z');

function load(yaml: string, name = 'conf.yaml') {
  const dir = writeTree({ [name]: yaml });
  return loadConfig(join(dir, name), { nowMs: NOW, cwd: dir });
}

const job = (extra = '') => `jobs:\n  - name: j\n    command: echo hi\n    schedule: "* * * * *"\n${extra}`;

describe('strict YAML dialect (spec 01 §1.6)', () => {
  it('types every scalar from text: quoted and unquoted are identical', () => {
    const a = load(job('    saveLimit: 100\n    killTimeout: 2.5\n    captureStdout: yes\n'));
    const b = load(job('    saveLimit: "100"\n    killTimeout: "2.5"\n    captureStdout: "YES"\n'));
    for (const cfg of [a, b]) {
      expect(cfg.jobs[0]!.saveLimit).toBe(100);
      expect(cfg.jobs[0]!.killTimeout).toBe(2.5);
      expect(cfg.jobs[0]!.captureStdout).toBe(true);
    }
  });

  it('never applies YAML implicit typing to text values', () => {
    const cfg = load(
      job(
        '    environment:\n      - key: A\n        value: 1e3\n      - key: B\n        value: 0x1F\n      - key: C\n        value: ~\n      - key: D\n        value: 012\n',
      ),
    );
    expect(cfg.jobs[0]!.environment).toEqual([
      { key: 'A', value: '1e3' },
      { key: 'B', value: '0x1F' },
      { key: 'C', value: '~' },
      { key: 'D', value: '012' },
    ]);
  });

  it('accepts every boolean spelling, case-insensitively, and rejects others', () => {
    for (const t of ['yes', 'True', 'ON', '1', 'y'])
      expect(load(job(`    enabled: ${t}\n`)).jobs[0]!.enabled).toBe(true);
    for (const f of ['no', 'FALSE', 'off', '0', 'N'])
      expect(load(job(`    enabled: ${f}\n`)).jobs[0]!.enabled).toBe(false);
    const e = configErrorOf(load, job('    enabled: maybe\n'));
    expect(e.message).toContain('jobs[0].enabled');
    expect(e.message).toMatch(/expected a boolean.*'maybe'/);
  });

  it('reads ints with underscores and floats in every documented form', () => {
    expect(load(job('    saveLimit: 1_000\n')).jobs[0]!.saveLimit).toBe(1000);
    expect(load(job('    killTimeout: 1e1\n')).jobs[0]!.killTimeout).toBe(10);
    // The dialect reads .inf and .nan (spec 01 §1.6); durations refuse them (issue 14.5).
    expect(parseFloatText('.inf')).toBe(Number.POSITIVE_INFINITY);
    expect(parseFloatText('-.Inf')).toBe(Number.NEGATIVE_INFINITY);
    expect(parseFloatText('.NaN')).toBeNaN();
    expect(configErrorOf(load, job('    killTimeout: .inf\n')).message).toMatch(
      /conf\.yaml:5:18: jobs\[0\]\.killTimeout: expected a number, found '\.inf' \(it must be finite\)/,
    );
    expect(configErrorOf(load, job('    saveLimit: 1.5\n')).message).toContain(
      "expected an integer, found '1.5'",
    );
    expect(configErrorOf(load, job('    killTimeout: fast\n')).message).toContain(
      "expected a number, found 'fast'",
    );
  });

  it('rejects flow style, even empty collections, with file:line:column', () => {
    const e = configErrorOf(load, job('    environment: []\n'));
    expect(e.message).toMatch(/conf\.yaml:5:18: flow style \[\.\.\.\] is not allowed/);
    expect(configErrorOf(load, 'web: {listen: x}\n').message).toContain('flow style {...} is not allowed');
  });

  it('rejects anchors, aliases and tags', () => {
    expect(configErrorOf(load, 'defaults: &d\n  shell: /bin/bash\n').message).toMatch(
      /conf\.yaml:\d+:\d+: anchors \(&d\) are not allowed/,
    );
    const aliased = configErrorOf(
      load,
      'defaults:\n  shell: &s /bin/bash\njobs:\n  - name: j\n    command: *s\n    schedule: "* * * * *"\n',
    );
    expect(aliased.message).toContain('aliases (*s) are not allowed');
    expect(configErrorOf(load, job('    shell: !!str /bin/bash\n')).message).toContain(
      'tags (tag:yaml.org,2002:str) are not allowed',
    );
  });

  it('rejects duplicate keys in one mapping', () => {
    const e = configErrorOf(
      load,
      'jobs:\n  - name: j\n    name: k\n    command: x\n    schedule: "* * * * *"\n',
    );
    expect(e.message).toMatch(/conf\.yaml:3:\d+: duplicate key/);
  });

  it('names unknown keys with their path and a hint', () => {
    const e = configErrorOf(load, job('    onfailure:\n      retry: x\n'));
    expect(e.message).toMatch(
      /conf\.yaml:5:5: jobs\[0\]\.onfailure: unexpected key not in schema 'onfailure' \(did you mean 'onFailure'\?\)/,
    );
    const top = configErrorOf(load, 'jobz: 1\n');
    expect(top.message).toContain("unexpected key not in schema 'jobz'");
  });

  it('reports missing required keys at the mapping', () => {
    const e = configErrorOf(load, 'jobs:\n  - name: j\n    schedule: "* * * * *"\n');
    expect(e.message).toMatch(/conf\.yaml:2:5: jobs\[0\]: required key\(s\) 'command' not found/);
    const retry = configErrorOf(load, job('    onFailure:\n      retry:\n        maximumRetries: 1\n'));
    expect(retry.message).toContain(
      "jobs[0].onFailure.retry: required key(s) 'initialDelay', 'maximumDelay', 'backoffMultiplier' not found",
    );
  });

  it('treats an empty document or a comment-only file as an empty config', () => {
    expect(load('').jobs).toEqual([]);
    expect(load('# nothing here\n').jobs).toEqual([]);
  });

  it('requires a mapping at the top level', () => {
    expect(configErrorOf(load, '- a\n- b\n').message).toContain('expected a mapping, found a list');
  });

  it('allows block scalars, comments and a document start marker', () => {
    const cfg = load(
      '---\n# comment\njobs:\n  - name: j\n    command: |\n      echo one\n      echo two\n    schedule: "* * * * *"\n',
    );
    expect(cfg.jobs[0]!.command).toBe('echo one\necho two\n');
  });

  it('keeps $ and ${VAR} verbatim (no interpolation)', () => {
    const cfg = load(
      'jobs:\n  - name: j\n    command: echo ${BACKUP_BUCKET:-<unset>} $HOSTNAME\n    schedule: "* * * * *"\n',
    );
    expect(cfg.jobs[0]!.command).toBe('echo ${BACKUP_BUCKET:-<unset>} $HOSTNAME');
  });

  it('reports every error of one load together', () => {
    const e = configErrorOf(
      load,
      'jobs:\n  - name: a\n    command: x\n    schedule: "* * * * *"\n    saveLimit: nope\n  - name: b\n    command: x\n    schedule: "* * * * *"\n    enabled: maybe\n',
    );
    expect(e.issues).toHaveLength(2);
    expect(e.message).toContain('jobs[0].saveLimit');
    expect(e.message).toContain('jobs[1].enabled');
  });

  it('tries union alternatives left to right (user: Int|Str, monitorResources: Bool|Map)', () => {
    const cfg = load(job('    monitorResources:\n      interval: 2\n'), 'c.yaml');
    expect(cfg.jobs[0]!.monitorResources).toEqual({ interval: 2 });
    expect(load(job('    monitorResources: on\n')).jobs[0]!.monitorResources).toBe(true);
    const e = configErrorOf(load, job('    monitorResources:\n      interval: 2\n      bogus: 1\n'));
    expect(e.message).toContain("jobs[0].monitorResources.bogus: unexpected key not in schema 'bogus'");
  });
});
