// Spec 09 §3: `workingDirectory` and `priority` at load (resolution, schema, advisories, job-set
// id). The run-time effects (cwd, nice, launch failure) are in test/integration/spec09-launch-place.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobSetId } from '../../src/cluster/jobset.ts';
import {
  type HomeLookup,
  niceOf,
  priorityRaiseWarning,
  resolveWorkingDirectory,
} from '../../src/config/launch-place.ts';
import { loadConfig } from '../../src/config/load.ts';
import { configMessageOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

const homes: HomeLookup = {
  own: () => '/home/me',
  of: (u) => (u === 'alice' ? '/home/alice' : null),
};

const J = (extra = '') => `jobs:\n  - name: J\n    command: "true"\n    schedule: "* * * * *"\n${extra}`;

function load(text: string, files: Record<string, string> = {}) {
  const dir = writeTree({ 'c.yaml': text, ...files });
  return { dir, cfg: loadConfig(join(dir, 'c.yaml'), { cwd: dir }) };
}

describe('workingDirectory resolution (spec 09 §3.2)', () => {
  it('inherits on null, empty and blank', () => {
    for (const raw of [null, '', '   ']) expect(resolveWorkingDirectory(raw, '/d', homes)).toBeNull();
  });
  it('expands ~ and ~user, leaves an unknown user, and makes the rest absolute and normal', () => {
    expect(resolveWorkingDirectory('~', '/d', homes)).toBe('/home/me');
    expect(resolveWorkingDirectory('~/x/../y', '/d', homes)).toBe('/home/me/y');
    expect(resolveWorkingDirectory('~alice/w', '/d', homes)).toBe('/home/alice/w');
    expect(resolveWorkingDirectory('~bob/w', '/d', homes)).toBe('/d/~bob/w');
    expect(resolveWorkingDirectory('rel/./dir/', '/d', homes)).toBe('/d/rel/dir');
    expect(resolveWorkingDirectory('/a//b/../c', '/d', homes)).toBe('/a/c');
    expect(resolveWorkingDirectory('$HOME/x', '/d', homes)).toBe('/d/$HOME/x');
  });
});

describe('priority levels (spec 09 §3.3)', () => {
  it('maps the five levels to absolute nice values', () => {
    expect(['idle', 'below-normal', 'normal', 'above-normal', 'high'].map((l) => niceOf(l as never))).toEqual(
      [19, 10, null, -5, -10],
    );
  });
  it('v23: at nice 12, non-root, below-normal warns and idle does not; root never warns', () => {
    expect(priorityRaiseWarning('b', 'below-normal', 12, 1000)).toBe(
      "job 'b' asks for priority 'below-normal' (nice 10), a raise from cronstable's own nice 12, which needs CAP_SYS_NICE or RLIMIT_NICE headroom; where the kernel refuses it the job still runs, at the priority it inherited",
    );
    expect(priorityRaiseWarning('i', 'idle', 12, 1000)).toBeNull();
    expect(priorityRaiseWarning('h', 'high', 0, 0)).toBeNull();
    expect(priorityRaiseWarning('n', 'normal', 12, 1000)).toBeNull();
  });
});

describe('loading the keys', () => {
  it('v20: a workingDirectory that does not exist still loads (existence is not checked)', () => {
    const { cfg } = load(J('    workingDirectory: /nonexistent/x\n'));
    expect(cfg.jobs[0]?.workingDirectory).toBe('/nonexistent/x');
  });
  it('v19: a relative workingDirectory is made absolute against the cwd at load', () => {
    const { cfg, dir } = load(J('    workingDirectory: rel/dir\n'));
    expect(cfg.jobs[0]?.workingDirectory).toBe(join(dir, 'rel/dir'));
  });
  it('v21: defaults.workingDirectory reaches a plain job; a blank one opts out', () => {
    const { cfg } = load(
      'defaults:\n  workingDirectory: /srv\njobs:\n  - name: A\n    command: pwd\n    schedule: "* * * * *"\n  - name: B\n    command: pwd\n    schedule: "* * * * *"\n    workingDirectory:\n',
    );
    expect(cfg.jobs.map((j) => j.workingDirectory)).toEqual(['/srv', null]);
  });
  it('DAG tasks take workingDirectory and priority', () => {
    const { cfg, dir } = load(
      'state:\n  path: st\ndags:\n  - name: d\n    tasks:\n      - id: t\n        command: pwd\n        workingDirectory: w\n        priority: idle\n',
    );
    expect(cfg.dags[0]?.tasks[0]).toMatchObject({ workingDirectory: join(dir, 'w'), priority: 'idle' });
  });
  it('v23: priority realtime is a schema error naming the five levels, at file:line:col', () => {
    const text = configMessageOf(load, J('    priority: realtime\n'));
    expect(text).toMatch(/c\.yaml:5:\d+: /);
    expect(text).toContain("'idle', 'below-normal', 'normal', 'above-normal', 'high'");
  });
  it('wrong types are refused with file:line:col', () => {
    expect(configMessageOf(load, J('    workingDirectory:\n      - a\n'))).toMatch(
      /c\.yaml:\d+:\d+: .*workingDirectory/,
    );
    expect(configMessageOf(load, J('    priority: 5\n'))).toMatch(/c\.yaml:5:\d+: /);
  });
  it('v24: priority normal, workingDirectory leave the job-set id; priority idle changes it', () => {
    const id = (extra: string) => jobSetId(load(J(extra)).cfg.jobs);
    const base = id('');
    expect(id('    priority: normal\n')).toBe(base);
    expect(id('    workingDirectory: /srv\n')).toBe(base);
    expect(id('    priority: idle\n')).not.toBe(base);
  });
});
