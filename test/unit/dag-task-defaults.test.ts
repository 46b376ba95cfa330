// Spec 09 §4.1-§4.3 at load: DAG tasks inherit `defaults:` (built-ins < includes' defaults < the
// file's own < the task), the launch keys and report blocks take effect, the other inherited keys are
// validated on the merged template under the task's prefix, and a task's `onFailure` has no `retry`.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type LoadOptions, loadConfig } from '../../src/config/load.ts';
import { configMessageOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

const STATE = 'state:\n  path: /tmp/cronstable-state\n';

function load(yaml: string, extraFiles: Record<string, string> = {}, opts: LoadOptions = {}) {
  const dir = writeTree({ 'conf.yaml': yaml, ...extraFiles });
  return loadConfig(join(dir, 'conf.yaml'), { cwd: dir, euid: 0, ...opts });
}

const dag = (task: string) =>
  `dags:\n  - name: d\n    tasks:\n      - id: t\n        command: "true"\n${task}`;

describe('DAG tasks inherit defaults (spec 09 §4.1, §4.2)', () => {
  it('vector 25: the defaults shell and environment, the task winning by key', () => {
    const cfg = load(
      `${STATE}defaults:\n  shell: /bin/bash\n  environment:\n    - key: A\n      value: d\n    - key: B\n      value: b\n` +
        dag('        environment:\n          - key: A\n            value: task\n'),
    );
    const t = cfg.dags[0]!.tasks[0]!;
    expect(t.shell).toBe('/bin/bash');
    expect(t.effectiveEnvironment).toEqual([
      { key: 'A', value: 'task' },
      { key: 'B', value: 'b' },
    ]);
  });

  it('built-ins < the includes defaults < the file defaults < the task, deep-merged', () => {
    const inc = 'defaults:\n  captureStdout: true\n  saveLimit: 7\n  killTimeout: 3\n';
    const cfg = load(
      `${STATE}include:\n  - inc.yaml\ndefaults:\n  saveLimit: 9\n  failsWhen:\n    producesStdout: false\n    producesStderr: false\n` +
        dag('        killTimeout: 1\n'),
      { 'inc.yaml': inc },
    );
    const t = cfg.dags[0]!.tasks[0]!;
    expect(t.captureStdout).toBe(true);
    expect(t.saveLimit).toBe(9);
    expect(t.killTimeout).toBe(1);
    expect(t.failsWhen).toEqual({
      producesStdout: false,
      producesStderr: false,
      nonzeroReturn: true,
      always: false,
    });
    // The built-ins fill what nobody set.
    expect(t.maxLineLength).toBe(16_777_216);
    expect(t.retries).toBe(0);
  });

  it('a DAG of an included file takes that file’s defaults, not the includer’s', () => {
    const inc = `defaults:\n  shell: /bin/dash\n${dag('')}`;
    const cfg = load(`${STATE}include:\n  - inc.yaml\ndefaults:\n  shell: /bin/bash\n`, { 'inc.yaml': inc });
    expect(cfg.dags[0]!.tasks[0]!.shell).toBe('/bin/dash');
  });

  it('carries the defaults report blocks onto the task, merged under its own', () => {
    const cfg = load(
      `${STATE}defaults:\n  onSuccess:\n    report:\n      shell:\n        command: echo ok\n  onFailure:\n    retry:\n      maximumRetries: 3\n      initialDelay: 1\n      maximumDelay: 5\n      backoffMultiplier: 2\n    report:\n      webhook:\n        url:\n          value: http://127.0.0.1:1/\n` +
        dag('        onFailure:\n          report:\n            shell:\n              command: echo bad\n'),
    );
    const t = cfg.dags[0]!.tasks[0]!;
    expect(t.onSuccess.report.shell?.command).toBe('echo ok');
    expect(t.onFailure.report.shell?.command).toBe('echo bad');
    expect(t.onFailure.report.webhook?.url?.value).toBe('http://127.0.0.1:1/');
    expect(Object.keys(t.onFailure)).toEqual(['report']);
  });

  it('never takes DAG-node keys from defaults, nor changes the jobs beside it', () => {
    const cfg = load(
      `${STATE}defaults:\n  captureStdout: true\njobs:\n  - name: j\n    command: x\n    schedule: "* * * * *"\n${dag('')}`,
    );
    expect(cfg.jobs[0]!.captureStdout).toBe(true);
    expect(cfg.dags[0]!.tasks[0]!.captureStdout).toBe(true);
    expect(configMessageOf(load, `${STATE}defaults:\n  retries: 2\n${dag('')}`)).toContain(
      "unexpected key not in schema 'retries'",
    );
  });
});

describe('inert inherited keys are still validated on the task (spec 09 §4.2)', () => {
  it('prefixes a launch rule failure with the dag and task', () => {
    const msg = configMessageOf(load, `${STATE}defaults:\n  saveLimit: -1\n${dag('')}`);
    expect(msg).toContain("dag 'd': task 't': Job d.t: saveLimit must be >= 0");
    // The position is the defaults key that carried it.
    expect(msg).toMatch(/conf\.yaml:4:3: defaults\.saveLimit: /);
  });

  it('validates the inert job keys of the merged template', () => {
    expect(
      configMessageOf(
        load,
        `${STATE}defaults:\n  onFailure:\n    retry:\n      maximumRetries: 0\n      initialDelay: 1\n      maximumDelay: 0\n      backoffMultiplier: 2\n${dag('')}`,
      ),
    ).toContain("dag 'd': task 't': Job d.t: onFailure.retry.maximumDelay must be > 0");
    expect(configMessageOf(load, `${STATE}defaults:\n  catchupJitterSeconds: -1\n${dag('')}`)).toContain(
      "dag 'd': task 't': Job d.t: catchupJitterSeconds must be >= 0",
    );
  });

  it('an inherited user fails tasks on a non-root daemon as it fails jobs', () => {
    const msg = configMessageOf(load, `${STATE}defaults:\n  user: nobody\n${dag('')}`, {}, { euid: 1000 });
    expect(msg).toMatch(/dag 'd': task 't': /);
  });

  it('does not double a prefix the rule already wrote', () => {
    const msg = configMessageOf(load, `${STATE}${dag('        secrets:\n          - name: s\n')}`);
    expect(msg).toContain("dag 'd': task 't': secret 's' needs a value, fromFile or fromEnvVar source");
    expect(msg).not.toContain("dag 'd': task 't': dag 'd'");
  });
});

describe('task report keys (spec 09 §4.3)', () => {
  it('vector 26: onFailure.retry on a task is a schema error', () => {
    const msg = configMessageOf(
      load,
      `${STATE}${dag('        onFailure:\n          retry:\n            maximumRetries: 2\n')}`,
    );
    expect(msg).toMatch(/dags\[0\]\.tasks\[0\]\.onFailure\.retry: unexpected key not in schema 'retry'/);
  });

  it('accepts onSuccess and onFailure report blocks, and no onPermanentFailure', () => {
    const cfg = load(
      `${STATE}${dag('        onSuccess:\n          report:\n            shell:\n              command: echo s\n        onFailure:\n          report:\n            shell:\n              command: echo f\n')}`,
    );
    expect(cfg.dags[0]!.tasks[0]!.onSuccess.report.shell?.command).toBe('echo s');
    expect(
      configMessageOf(load, `${STATE}${dag('        onPermanentFailure:\n          report:\n')}`),
    ).toContain("unexpected key not in schema 'onPermanentFailure'");
  });
});
