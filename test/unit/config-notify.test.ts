// The top-level `notify:` block (spec 09 §5.1): its schema, one block per assembled config, the
// allow-list, the merge over the reporter defaults, and interpolation (all but `report.shell`).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { configMessageOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

const WEBHOOK = `notify:
  report:
    webhook:
      url:
        value: http://127.0.0.1:9/\${HOOK_PATH:-hooks}
`;

describe('notify: schema', () => {
  it('refuses an event outside the four, listing them (vector 29)', () => {
    const dir = writeTree({ 'c.yaml': 'notify:\n  events:\n    - approval_waiting\n    - job_failure\n' });
    expect(configMessageOf(() => loadConfig(join(dir, 'c.yaml')))).toBe(
      `${join(dir, 'c.yaml')}:4:7: notify.events[1]: expected one of 'dag_failure', 'approval_waiting', 'leader_change', 'quorum_loss', found 'job_failure'`,
    );
  });

  it('refuses a blank notify: and a non-map report', () => {
    const dir = writeTree({ 'a.yaml': 'notify:\n', 'b.yaml': 'notify:\n  report: yes\n' });
    expect(configMessageOf(() => loadConfig(join(dir, 'a.yaml')))).toContain('notify: expected a mapping');
    expect(configMessageOf(() => loadConfig(join(dir, 'b.yaml')))).toContain('notify.report:');
  });

  it('allows one block per assembled config: two directory files (vector 29) or an include', () => {
    const dir = writeTree({ 'a.yaml': WEBHOOK, 'b.yaml': WEBHOOK });
    expect(configMessageOf(() => loadConfig(dir))).toContain(
      `Multiple 'notify' configurations found: first in ${join(dir, 'a.yaml')}, now in ${join(dir, 'b.yaml')}`,
    );
    const inc = writeTree({ 'main.yaml': `include:\n  - other.yaml\n${WEBHOOK}`, 'other.yaml': WEBHOOK });
    expect(configMessageOf(() => loadConfig(join(inc, 'main.yaml')))).toContain('multiple notify configs');
  });
});

describe('notify: the loaded block', () => {
  it('is null when absent, and every event when events is absent', () => {
    const dir = writeTree({ 'none.yaml': 'defaults:\n  shell: /bin/sh\n', 'all.yaml': WEBHOOK });
    expect(loadConfig(join(dir, 'none.yaml')).notify).toBeNull();
    expect(loadConfig(join(dir, 'all.yaml'), { env: {} }).notify!.events).toEqual([
      'dag_failure',
      'approval_waiting',
      'leader_change',
      'quorum_loss',
    ]);
  });

  it('keeps the allow-list, merges the report over the defaults, with the event fingerprint', () => {
    const dir = writeTree({
      'c.yaml':
        'notify:\n  events:\n    - quorum_loss\n    - dag_failure\n  report:\n    mail:\n      from: a@b\n      to: ops@b\n',
    });
    const n = loadConfig(join(dir, 'c.yaml')).notify!;
    expect(n.events).toEqual(['dag_failure', 'quorum_loss']);
    expect(n.report.mail).toMatchObject({
      from: 'a@b',
      to: 'ops@b',
      smtpPort: 25,
      subject: null,
      body: null,
    });
    expect(n.report.sentry!.fingerprint).toEqual(['cronstable', '{{ event }}', '{{ name }}']);
    expect(n.report.webhook!.method).toBe('POST');
  });

  it('expands variables everywhere but in report.shell', () => {
    const dir = writeTree({
      'c.yaml': `${WEBHOOK}    shell:\n      command: echo \${CRONSTABLE_EVENT} \${UNSET_HERE}\n`,
    });
    const n = loadConfig(join(dir, 'c.yaml'), { env: { HOOK_PATH: 'x' } }).notify!;
    expect(n.report.webhook!.url!.value).toBe('http://127.0.0.1:9/x');
    expect(n.report.shell!.command).toBe('echo ${CRONSTABLE_EVENT} ${UNSET_HERE}');
  });

  it('is not part of the job-set id', async () => {
    const { jobSetId } = await import('../../src/cluster/jobset.ts');
    const job = 'jobs:\n  - name: j\n    command: "true"\n    schedule: "* * * * *"\n';
    const dir = writeTree({ 'a.yaml': job, 'b.yaml': job + WEBHOOK });
    expect(jobSetId(loadConfig(join(dir, 'b.yaml'), { env: {} }).jobs)).toBe(
      jobSetId(loadConfig(join(dir, 'a.yaml')).jobs),
    );
  });
});
