// SLA monitoring against the durable ledger and the report order, on one real daemon with a store
// (spec 09 §2.4 step 2 and §2.6, issue 31):
// - S's only success is older than the 50 runs a restarted daemon keeps in memory (60 newer failures
//   were seeded into the ledger through the store API before the daemon started): the boot-time
//   ledger read finds it, so maxTimeSinceSuccess breaches and the onLate report names it;
// - J fails at boot (@reboot) and its failure report goes to a webhook that answers late: J's onLate
//   report is delivered only after that answer, while K's onLate report, due at the same pass, is not
//   held back by it.
// The pass runs every 250 ms (the CRONSTABLE_TEST_SLA_PASS_MS hook); every wait is on a condition.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { openStore } from '../../src/store/index.ts';
import { stopChild } from '../helpers/child.ts';
import { type E2eDaemon, startE2eDaemon } from '../helpers/e2e-daemon.ts';
import { until } from '../helpers/until.ts';

/** How long the webhook listener holds J's failure report before answering it. */
const SLOW_MS = 4000;

interface Hit {
  path: string;
  body: string;
  /** When the request arrived, and when its answer was sent. */
  at: number;
  answeredAt: number | null;
}

let dir: string;
let base: string;
let child: ChildProcess;
let daemon: E2eDaemon;
let server: Server;
const hits: Hit[] = [];
let lastSuccess = '';

/** A webhook listener that answers `/fail-J` after SLOW_MS and everything else at once. */
async function listener(): Promise<number> {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit: Hit = {
        path: req.url ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        answeredAt: null,
      };
      hits.push(hit);
      const answer = () => {
        hit.answeredAt = Date.now();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      };
      if (hit.path === '/fail-J') setTimeout(answer, SLOW_MS);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

const hook = (port: number, path: string) =>
  `        webhook:\n          url:\n            value: http://127.0.0.1:${port}${path}\n`;

function config(port: number, sink: number, state: string): string {
  return `web:
  listen:
    - http://127.0.0.1:${port}
state:
  path: ${state}
jobs:
  - name: S
    command: 'true'
    schedule: '0 0 1 1 *'
    sla:
      maxTimeSinceSuccessSeconds: 3600
    onLate:
      report:
${hook(sink, '/late-S')}  - name: J
    command: exit 1
    schedule: '@reboot'
    onFailure:
      report:
${hook(sink, '/fail-J')}    sla:
      maxTimeSinceSuccessSeconds: 2
    onLate:
      report:
${hook(sink, '/late-J')}  - name: K
    command: 'true'
    schedule: '0 0 1 1 *'
    sla:
      maxTimeSinceSuccessSeconds: 2
    onLate:
      report:
${hook(sink, '/late-K')}`;
}

/** S's ledger: one success two hours ago, then 60 failures in the last half hour (none of them old). */
async function seedLedger(state: string): Promise<void> {
  const store = await openStore({
    path: state,
    namespace: 'default',
    topology: 'single-node',
    inline: true,
    writer: 'seed#1',
  });
  const row = (outcome: string, at: number, i: number) => ({
    outcome,
    exit_code: outcome === 'success' ? 0 : 1,
    started_at: new Date(at - 100).toISOString(),
    finished_at: new Date(at).toISOString(),
    duration: 0.1,
    fail_reason: outcome === 'success' ? null : 'exit code 1',
    resources: null,
    run_id: `seed-${i}`,
    trigger: 'manual',
    attempt: 0,
    scheduled_at: null,
  });
  try {
    const now = Date.now();
    const success = now - 2 * 3_600_000;
    lastSuccess = new Date(success).toISOString();
    await store.append('runs/S', row('success', success, 0));
    for (let i = 1; i <= 60; i++) await store.append('runs/S', row('failure', now - (61 - i) * 30_000, i));
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cronstable-sla-ledger-'));
  const state = join(dir, 'state');
  mkdirSync(state);
  await seedLedger(state);
  const sink = await listener();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  writeFileSync(join(dir, 'c.yaml'), config(port, sink, state));
  daemon = await startE2eDaemon(dir, {
    base,
    config: join(dir, 'c.yaml'),
    env: { CRONSTABLE_TEST_SLA_PASS_MS: '250' },
  });
  child = daemon.child;
}, 30_000);

afterAll(async () => {
  await stopChild(child);
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

const hitOf = (path: string) => hits.find((h) => h.path === path) ?? null;

describe('SLA reference from the ledger and report order (spec 09 §2.4 step 2, §2.6)', () => {
  it('a success older than the in-memory history is found in the ledger at boot and reported', async () => {
    // The restarted daemon's /runs holds only the newest 50 runs: all failures.
    const runs = (await (await fetch(`${base}/jobs/S/runs`)).json()) as { runs: { outcome: string }[] };
    expect(runs.runs.length).toBeLessThanOrEqual(50);
    expect(runs.runs.some((r) => r.outcome === 'success')).toBe(false);
    const hit = await until('the onLate report of S', 15_000, async () => hitOf('/late-S'));
    const text = (JSON.parse(hit.body) as { text: string }).text;
    expect(text).toContain("Cron job 'S' is overdue (maxTimeSinceSuccess)");
    expect(text).toContain(`Last success: ${lastSuccess}`);
    const observed = Number(/Observed: ([\d.]+) seconds/.exec(text)?.[1]);
    expect(observed).toBeGreaterThanOrEqual(7200);
    expect(observed).toBeLessThan(7200 + 120);
    const row = (await (await fetch(`${base}/jobs/S`)).json()) as { sla: { state: string } };
    expect(row.sla.state).toBe('late');
  });

  it('a job’s onLate waits for its slow completion report; another job’s is not held back', async () => {
    const lateJ = await until('the onLate report of J', 20_000, async () => hitOf('/late-J'));
    const fail = hitOf('/fail-J')!;
    const lateK = hitOf('/late-K')!;
    expect(fail).not.toBeNull();
    expect(lateK).not.toBeNull();
    // J failed at boot; its breach came while its failure report was still unanswered.
    expect(fail.answeredAt).not.toBeNull();
    expect(lateJ.at).toBeGreaterThanOrEqual(fail.answeredAt!);
    // K breached at the same pass and was delivered while J's failure report was still held.
    expect(lateK.at).toBeLessThan(fail.answeredAt!);
    expect(daemon.logs()).toMatch(/Job J: SLA check maxTimeSinceSuccess breached/);
  });
});
