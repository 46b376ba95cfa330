// The notify events' texts and their default renderings (spec 09 §5.2, §5.3): subjects and
// messages, the reload variants, the context's variables and shell env, and the mail, Sentry and
// webhook defaults rendered through the real template engine.
import { describe, expect, it } from 'vitest';
import { defaultReportBlock } from '../../src/config/builtins.ts';
import {
  approvalWaitingEvent,
  dagFailureEvent,
  leaderChangeEvent,
  notifyContext,
  notifyReportBlock,
  quorumLossEvent,
} from '../../src/report/notify-event.ts';
import { shellReporterEnv } from '../../src/report/shell.ts';
import { renderTemplate, templateVars } from '../../src/report/template.ts';

const KEY = '2026-07-20T04:00:00_00:00';

function render(ev: ReturnType<typeof dagFailureEvent>) {
  const block = notifyReportBlock(defaultReportBlock());
  const vars = templateVars(notifyContext(ev, 'host-1', '/bin/sh'));
  return {
    subject: renderTemplate(block.mail!.subject!, vars),
    body: renderTemplate(block.mail!.body!, vars),
    sentry: renderTemplate(block.sentry!.body!, vars),
    webhook: renderTemplate(block.webhook!.body!, vars),
  };
}

describe('notify event texts', () => {
  it('dag_failure: sorted task keys, or no detail', () => {
    const ev = dagFailureEvent('orders', KEY, 'run-1', ['report', 'load']);
    expect([ev.subject, ev.message]).toEqual([
      `DAG 'orders' run ${KEY} failed`,
      '2 task(s) failed: load, report',
    ]);
    expect(ev.vars).toEqual({
      dag: 'orders',
      run_key: KEY,
      run_id: 'run-1',
      failed_tasks: ['load', 'report'],
    });
    expect(dagFailureEvent('orders', KEY, 'run-1', []).message).toBe('0 task(s) failed: (no task detail)');
  });

  it('approval_waiting, leader_change and quorum_loss, with their reload variants', () => {
    expect(approvalWaitingEvent('rel', KEY, 'r', 'gate')).toMatchObject({
      subject: `DAG 'rel' run ${KEY} awaiting approval: gate`,
      message:
        'Task gate is an approval gate awaiting a decision; approve or reject it to let the run continue.',
      vars: { taskkey: 'gate' },
    });
    expect(leaderChangeEvent('n1', true, 'n1')).toMatchObject({
      subject: 'node n1 acquired scheduled-job leadership',
      message: 'This node is now the scheduled-job leader.',
      vars: { role: 'leader', is_leader: true, leader: 'n1' },
      fleetKey: null,
    });
    expect(leaderChangeEvent('n1', false, 'n2')).toMatchObject({
      subject: 'node n1 lost scheduled-job leadership',
      message: 'This node is no longer the scheduled-job leader.',
      vars: { role: 'follower', is_leader: false, leader: 'n2' },
    });
    expect(leaderChangeEvent('n1', false, 'n2', true)).toMatchObject({
      message:
        'This node is no longer the scheduled-job leader (leadership manager stopped for a config reload).',
      vars: { leader: null },
    });
    expect(quorumLossEvent('n1')).toMatchObject({
      subject: 'node n1 left quorum',
      message: 'No majority reachable; Leader jobs cannot run on this node until quorum is restored.',
      vars: { quorate: false },
    });
    expect(quorumLossEvent('n1', true).message).toBe(
      'This node left quorum (leadership manager stopped for a config reload); Leader jobs cannot run until it is rebuilt.',
    );
  });
});

describe('notify defaults', () => {
  it('render the spec example for every reporter', () => {
    const r = render(dagFailureEvent('orders', KEY, 'run-1', ['load', 'report']));
    expect(r.subject).toBe(`cronstable dag_failure: DAG 'orders' run ${KEY} failed`);
    expect(r.body).toBe('2 task(s) failed: load, report');
    expect(r.sentry).toBe(
      `cronstable dag_failure: DAG 'orders' run ${KEY} failed\n2 task(s) failed: load, report`,
    );
    expect(r.webhook).toBe(
      `{"text": "cronstable dag_failure: DAG \\u0027orders\\u0027 run ${KEY} failed\\n2 task(s) failed: load, report\\n"}`,
    );
  });

  it('keep a template the block sets, and default the event fingerprint', () => {
    const base = defaultReportBlock();
    base.mail!.subject = 'custom {{ event }}';
    const block = notifyReportBlock(base);
    expect(block.mail!.subject).toBe('custom {{ event }}');
    expect(block.webhook!.body).toContain('{% filter tojson %}');
  });

  it('give a context of a run that did not happen, with the event variables', () => {
    const ctx = notifyContext(dagFailureEvent('orders', KEY, 'run-1', ['load']), 'host-1', '/bin/sh');
    expect(templateVars(ctx)).toMatchObject({
      name: 'orders',
      success: false,
      fail_reason: '1 task(s) failed: load',
      stdout: null,
      exit_code: null,
      command: '',
      shell: '/bin/sh',
      environment: { HOSTNAME: 'host-1' },
      host: 'host-1',
      started_at: null,
      run_id: 'run-1',
      event: 'dag_failure',
      dag: 'orders',
    });
    expect(shellReporterEnv(ctx)).toMatchObject({
      CRONSTABLE_JOB_NAME: 'orders',
      CRONSTABLE_JOB_COMMAND: '',
      CRONSTABLE_JOB_SCHEDULE: '',
      CRONSTABLE_FAILED: '1',
      CRONSTABLE_FAIL_REASON: '1 task(s) failed: load',
      CRONSTABLE_RETCODE: '',
      CRONSTABLE_HOST: 'host-1',
      CRONSTABLE_RUN_ID: 'run-1',
      CRONSTABLE_STARTED_AT: '',
      CRONSTABLE_SLA_CHECK: '',
      CRONSTABLE_EVENT: 'dag_failure',
      CRONSTABLE_EVENT_SUBJECT: `DAG 'orders' run ${KEY} failed`,
    });
    expect(shellReporterEnv(notifyContext(quorumLossEvent('n1'), 'h', '/bin/sh')).CRONSTABLE_RUN_ID).toBe('');
  });
});
