import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { configMessageOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

const STATE = 'state:\n  path: /tmp/cronstable-state\n';
const NOW = Date.parse('2026-01-07T12:00:00Z');

function load(yaml: string) {
  const dir = writeTree({ 'conf.yaml': yaml });
  return loadConfig(join(dir, 'conf.yaml'), { nowMs: NOW, cwd: dir, euid: 0 });
}

const job = (name: string, extra = '') =>
  `  - name: ${name}\n    command: x\n    schedule: "30 1 * * *"\n    timezone: America/New_York\n${extra}`;

describe('dst policy config (issue 15)', () => {
  it('defaults to first / shift when no dst key is given anywhere', () => {
    const cfg = load(
      `${STATE}jobs:\n${job('a')}dags:\n  - name: d\n    schedule: "0 1 * * *"\n    tasks:\n      - id: t\n        command: x\n`,
    );
    expect(cfg.jobs[0]!.dst).toEqual({ repeated: 'first', skipped: 'shift' });
    expect(cfg.dags[0]!.dst).toEqual({ repeated: 'first', skipped: 'shift' });
  });

  it('takes the issue example: defaults merged key by key under a job override', () => {
    const cfg = load(
      'defaults:\n  dst:\n    repeated: first\n    skipped: skip\n' +
        `jobs:\n${job('settle-ledger', '    dst:\n      repeated: last\n')}${job('plain')}`,
    );
    expect(cfg.jobs[0]!.dst).toEqual({ repeated: 'last', skipped: 'skip' });
    expect(cfg.jobs[1]!.dst).toEqual({ repeated: 'first', skipped: 'skip' });
  });

  it('accepts dst on a DAG', () => {
    const cfg = load(
      `${STATE}dags:\n  - name: d\n    schedule: "0 1 * * *"\n    timezone: America/New_York\n    dst:\n      repeated: both\n    tasks:\n      - id: t\n        command: x\n`,
    );
    expect(cfg.dags[0]!.dst).toEqual({ repeated: 'both', skipped: 'shift' });
  });

  it('rejects a bad repeated value with file:line:col and the key path', () => {
    const msg = configMessageOf(load, `jobs:\n${job('a', '    dst:\n      repeated: twice\n')}`);
    expect(msg).toMatch(/conf\.yaml:7:17: jobs\[0\]\.dst\.repeated: /);
    expect(msg).toContain("expected one of 'first', 'last', 'both', found 'twice'");
  });

  it('rejects a bad skipped value in defaults', () => {
    const msg = configMessageOf(load, `defaults:\n  dst:\n    skipped: later\njobs:\n${job('a')}`);
    expect(msg).toMatch(/conf\.yaml:3:14: defaults\.dst\.skipped: /);
    expect(msg).toContain("expected one of 'shift', 'skip', found 'later'");
  });

  it('rejects an unknown key under dst, and a dst that is not a map, on a DAG', () => {
    const unknown = configMessageOf(load, `jobs:\n${job('a', '    dst:\n      fold: 1\n')}`);
    expect(unknown).toMatch(/conf\.yaml:7:7: jobs\[0\]\.dst/);
    expect(unknown).toContain('fold');
    const scalar = configMessageOf(
      load,
      'dags:\n  - name: d\n    schedule: "0 1 * * *"\n    dst: last\n    tasks:\n      - id: t\n        command: x\n',
    );
    expect(scalar).toMatch(/conf\.yaml:4:10: dags\[0\]\.dst/);
  });

  it('the load-time DST lints say what the policy does', () => {
    const cfg = load(
      'jobs:\n' +
        '  - name: spring\n    command: x\n    schedule: "30 2 * * *"\n    timezone: America/New_York\n    dst:\n      skipped: skip\n' +
        '  - name: fall\n    command: x\n    schedule: "30 1 * * *"\n    timezone: America/New_York\n    dst:\n      repeated: last\n' +
        '  - name: both\n    command: x\n    schedule: "30 1 * * *"\n    timezone: America/New_York\n    dst:\n      repeated: both\n' +
        '  - name: plain\n    command: x\n    schedule: "30 2 * * *"\n    timezone: America/New_York\n',
    );
    const msg = (name: string, code: string) =>
      cfg.jobs.find((j) => j.name === name)!.findings.find((f) => f.code === code)?.message;
    expect(msg('spring', 'dst-skipped-time')).toBe(
      'on 2026-03-08 the wall time 02:30 does not exist in America/New_York (clocks jump forward); does not fire that day (dst.skipped: skip)',
    );
    expect(msg('plain', 'dst-skipped-time')).toContain('fires at the shifted wall time 03:30');
    expect(msg('fall', 'dst-repeated-time')).toContain(
      'occurs twice in America/New_York (clocks fall back); fires on the second occurrence only (dst.repeated: last)',
    );
    expect(msg('both', 'dst-repeated-time')).toContain('fires on both occurrences (dst.repeated: both)');
    expect(
      cfg.warnings.some((w) => w.message.includes("job 'spring'") && w.message.includes('dst.skipped: skip')),
    ).toBe(true);
  });
});
