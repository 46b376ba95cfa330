// `cronstable slots JOB` through the built CLI on a real store written by two "nodes".
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { writeTree } from '../helpers/tmp.ts';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'cronstable.mjs');
const cli = (...args: string[]) => {
  const r = spawnSync(process.execPath, [BUNDLE, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const at = (h: number) => `2026-03-01T${String(h).padStart(2, '0')}:00:00.000Z`;

describe('cronstable slots', () => {
  let conf: string;
  beforeAll(async () => {
    const dir = writeTree({}, true);
    conf = join(dir, 'c.yaml');
    const statePath = join(dir, 'state');
    writeFileSync(
      conf,
      `state:\n  path: ${statePath}\n  topology: single-node\n  deploymentId: prod\njobs:\n  - name: hourly\n    command: x\n    schedule: "0 * * * *"\n`,
    );
    const open = (writer: string) =>
      openStore({ path: statePath, namespace: 'prod', topology: 'single-node', inline: true, writer });
    const a = await open('node-a#1');
    const b = await open('node-b#2');
    const row = (s: string, outcome: string, extra: Record<string, unknown> = {}) => ({
      outcome,
      scheduled_at: s,
      trigger: 'schedule',
      attempt: 0,
      run_id: null,
      fail_reason: null,
      ...extra,
    });
    await a.append('runs/hourly', row(at(0), 'success', { run_id: 'run-0' }));
    await b.append('runs/hourly', row(at(0), 'claimed-elsewhere', { fail_reason: 'claimed by node-a' }));
    await b.append('runs/hourly', row(at(1), 'skipped:overlap'));
    await a.close();
    await b.close();
  });

  it('prints the table of every slot in the window', () => {
    const r = cli('-c', conf, 'slots', 'hourly', '--since', at(0), '--until', at(3));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SCHEDULED_AT\s+OUTCOME\s+NODE\s+RUN_ID\s+REASON$/);
    expect(lines[1]).toMatch(new RegExp(`^${at(0)}\\s+ran\\s+node-a\\s+run-0$`));
    expect(lines[2]).toMatch(new RegExp(`^${at(1)}\\s+skipped-overlap\\s+node-b\\s+-$`));
    expect(lines[3]).toMatch(new RegExp(`^${at(2)}\\s+unaccounted\\s+-\\s+-$`));
    expect(lines[4]).toBe('3 slot(s): ran 1, skipped-overlap 1, unaccounted 1');
  });

  it('prints the route’s JSON body with --json', () => {
    const r = cli('slots', 'hourly', '-c', conf, '--since', at(0), '--until', at(2), '--json');
    expect(r.code).toBe(0);
    const body = JSON.parse(r.out);
    expect(body).toMatchObject({ name: 'hourly', source: 'ledger', unaccounted: 0 });
    expect(body.slots[0]).toMatchObject({
      scheduled_at: at(0),
      outcome: 'ran',
      node: 'node-a',
      run_id: 'run-0',
      others: [{ node: 'node-b', outcome: 'claimed-elsewhere', reason: 'claimed by node-a' }],
    });
  });

  it('refuses bad input with a clear message', () => {
    const bad = cli('-c', conf, 'slots', 'hourly', '--since', 'last-tuesday');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/cronstable slots: invalid --since instant 'last-tuesday'/);
    const ghost = cli('-c', conf, 'slots', 'ghost');
    expect(ghost.code).toBe(1);
    expect(ghost.err).toMatch(/job 'ghost' not found/);
    const none = cli('-c', conf, 'slots');
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/missing JOB/);
    expect(cli('slots', '--help').out).toContain('usage: cronstable [-c CONF] slots JOB');
  });
});
