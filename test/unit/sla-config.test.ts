// Spec 09 §2.1: the `sla` and `onLate` keys at load — vectors 10 and 11 (exact texts with
// file:line:col), the deep merge from `defaults:`, tasks refusing them, and vector 24's
// `J + sla/onLate` case (neither key is part of the job-set id, §2.8).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobSetId } from '../../src/cluster/jobset.ts';
import { loadConfig } from '../../src/config/load.ts';
import { namesDestination } from '../../src/config/sla.ts';
import { configErrorOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

const J = (extra = '') => `jobs:\n  - name: J\n    command: "true"\n    schedule: "* * * * *"\n${extra}`;

function load(text: string) {
  const dir = writeTree({ 'c.yaml': text });
  return loadConfig(join(dir, 'c.yaml'), { cwd: dir });
}

const issuesOf = (text: string) => configErrorOf(load, text).issues;

describe('vector 10: thresholds must be positive integers', () => {
  it('0 and -5 are refused with the spec text at the key', () => {
    const zero = issuesOf(J('    sla:\n      lateAfterSeconds: 0\n'));
    expect(zero).toHaveLength(1);
    expect(zero[0]).toMatchObject({
      line: 6,
      col: 7,
      message: 'Job J: sla.lateAfterSeconds must be > 0 when set',
    });
    expect(zero[0]!.file).toMatch(/c\.yaml$/);
    const neg = issuesOf(J('    sla:\n      maxRuntimeSeconds: -5\n'));
    expect(neg.map((i) => i.message)).toEqual(['Job J: sla.maxRuntimeSeconds must be > 0 when set']);
    expect(neg[0]).toMatchObject({ line: 6, col: 7 });
  });
  it('1.5 is a schema error (an integer expected)', () => {
    const [issue] = issuesOf(J('    sla:\n      lateAfterSeconds: 1.5\n'));
    expect(issue?.message).toBe("expected an empty value or an integer, found '1.5'");
    expect(issue).toMatchObject({ line: 6, path: 'jobs[0].sla.lateAfterSeconds' });
  });
});

describe('vector 11: onLate requires sla when it names a destination', () => {
  it('a mail `from` alone names one', () => {
    const issues = issuesOf(
      J('    onLate:\n      report:\n        mail:\n          from: a@b\n          to:\n'),
    );
    expect(issues.map((i) => i.message)).toEqual(['Job J: onLate requires sla']);
    expect(issues[0]).toMatchObject({ line: 5, col: 5 });
  });
  it('a webhook that only sets its method names none', () => {
    expect(
      load(J('    onLate:\n      report:\n        webhook:\n          method: GET\n')).jobs,
    ).toHaveLength(1);
  });
  it('what counts as a destination', () => {
    expect(namesDestination(null)).toBe(false);
    const mk = (b: object) => namesDestination(b as never);
    expect(mk({ shell: { command: 'x' } })).toBe(true);
    expect(mk({ webhook: { url: { fromEnvVar: 'U' } } })).toBe(true);
    expect(mk({ sentry: { dsn: { value: 'https://k@h/1' } } })).toBe(true);
    expect(mk({ mail: { to: 'x@y' } })).toBe(true);
    expect(mk({ eventlog: { enabled: true } })).toBe(true);
    expect(mk({ mail: { subject: 's', to: null, from: null }, webhook: { headers: { A: 'b' } } })).toBe(
      false,
    );
  });
});

describe('merging from defaults', () => {
  it('deep-merges both blocks; an empty value switches an inherited check off', () => {
    const cfg = load(
      'defaults:\n  sla:\n    lateAfterSeconds: 900\n    maxRuntimeSeconds: 60\n  onLate:\n    report:\n      shell:\n        command: echo late\n' +
        J('    sla:\n      maxRuntimeSeconds:\n      maxTimeSinceSuccessSeconds: 120\n'),
    );
    const job = cfg.jobs[0]!;
    expect(job.sla).toEqual({
      lateAfterSeconds: 900,
      maxRuntimeSeconds: null,
      maxTimeSinceSuccessSeconds: 120,
    });
    expect(job.onLate.report.shell?.command).toBe('echo late');
    expect(job.onLate.report.sentry?.fingerprint).toEqual(['cronstable', 'sla', '{{ name }}']);
    expect(job.onFailure.report.sentry?.fingerprint).toEqual([
      'cronstable',
      '{{ environment.HOSTNAME }}',
      '{{ name }}',
    ]);
  });
  it('switching every inherited check off while onLate names a destination is refused', () => {
    const issues = issuesOf(
      'defaults:\n  sla:\n    lateAfterSeconds: 900\n  onLate:\n    report:\n      shell:\n        command: echo late\n' +
        J('    sla:\n      lateAfterSeconds:\n'),
    );
    expect(issues.map((i) => i.message)).toEqual(['Job J: onLate requires sla']);
  });
  it('an @reboot job may carry sla', () => {
    const cfg = load(
      'jobs:\n  - name: R\n    command: "true"\n    schedule: "@reboot"\n    sla:\n      maxRuntimeSeconds: 5\n',
    );
    expect(cfg.jobs[0]!.sla.maxRuntimeSeconds).toBe(5);
  });
});

describe('DAG tasks do not take sla or onLate', () => {
  it('is an unknown key on a task', () => {
    const text =
      'state:\n  path: ./st\ndags:\n  - name: d\n    tasks:\n      - id: t\n        command: "true"\n        sla:\n          maxRuntimeSeconds: 5\n';
    const issues = issuesOf(text);
    expect(issues.some((i) => /sla/.test(`${i.path ?? ''} ${i.message}`))).toBe(true);
  });
});

describe('vector 24: sla and onLate never change the job-set id (§2.8)', () => {
  it('J and J + sla/onLate have one id', () => {
    const plain = jobSetId(load(J()).jobs);
    const withSla = jobSetId(
      load(
        J(
          '    sla:\n      lateAfterSeconds: 900\n      maxRuntimeSeconds: 60\n    onLate:\n      report:\n        shell:\n          command: echo late\n',
        ),
      ).jobs,
    );
    expect(withSla).toBe(plain);
  });
});
