// The daemon with a `state:` section: jobs use the store through the `cronstable` CLI on their
// PATH, and a restarted daemon continues counters, re-arms retries, catches up missed runs and
// does not re-run @reboot jobs within the same boot. Behaviour is read from the run ledger and
// the web API (`/state`), not from log wording.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { type DaemonRun, startDaemonRun, stopDaemonRun } from '../helpers/daemon-run.ts';
import { waitFor } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';

const CONFIG = (state: string) => `state:
  path: ${state}
  topology: single-node
  deploymentId: test-fleet
  maxRunsPerJob: "50"
web:
  listen:
    - http://127.0.0.1:0
defaults:
  captureStdout: true
jobs:
  - name: counter
    command: n=$(cronstable state get count --global 2>/dev/null || echo 0); cronstable state set count $((n+1)) --global && echo "count=$((n+1))"
    schedule: "* * * * * * *"
    concurrencyPolicy: Forbid
  - name: idem
    command: if cronstable idempotent once-only; then echo "WON"; else echo "LOST $?"; fi
    schedule: "*/2 * * * * * *"
  - name: env-check
    command: echo "run=$CRONSTABLE_RUN_ID job=$CRONSTABLE_JOB_NAME attempt=$CRONSTABLE_ATTEMPT url=$CRONSTABLE_STATE_URL"
    schedule: "@reboot"
  - name: secret-job
    command: echo "password=$(cronstable secret get token)"
    schedule: "@reboot"
    archiveOutput: true
    secrets:
      - name: token
        fromEnvVar: TEST_TOKEN
  - name: catchup
    command: echo caught-up
    schedule: "0 * * * *"
    onMissed: run-once
  - name: retrying
    command: exit 1
    schedule: "@reboot"
    onFailure:
      retry:
        maximumRetries: 3
        initialDelay: 3600
        maximumDelay: 3600
        backoffMultiplier: 1
`;

/** The daemon with the token its config interpolates. */
const startDaemon = (dir: string) =>
  startDaemonRun(join(dir, 'jobs.yaml'), { ...process.env, TEST_TOKEN: 'tok-Zq81-secret-value' });

/** The daemon's web API base URL, from its listen line (the port is chosen by the OS). */
function apiBase(run: DaemonRun): string | null {
  return /web: started listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.err)?.[1] ?? null;
}

interface PendingRetry {
  job: string;
  attempt: number;
  nextRetryAt: string | null;
}

async function pendingRetries(run: DaemonRun): Promise<PendingRetry[]> {
  const base = apiBase(run);
  if (!base) return [];
  const body = (await (await fetch(`${base}/state`)).json()) as { node?: { retries?: PendingRetry[] } };
  return body.node?.retries ?? [];
}

const lastCount = (out: string) => Math.max(0, ...[...out.matchAll(/count=(\d+)/g)].map((m) => Number(m[1])));

describe('the daemon with durable state', () => {
  let dir: string;
  let first: DaemonRun;
  let second: DaemonRun;
  let retriesBefore: PendingRetry[] = [];
  let retriesAfter: PendingRetry[] = [];
  const ledger = new Map<string, { trigger?: string; scheduled_at?: string | null; outcome?: string }[]>();

  beforeAll(async () => {
    dir = writeTree({}, true);
    const statePath = join(dir, 'state');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'jobs.yaml'), CONFIG(statePath));
    // A ledger row from "three hours ago": the hourly job has missed slots since.
    const store = await openStore({
      path: statePath,
      namespace: 'test-fleet',
      topology: 'single-node',
      inline: true,
    });
    const past = new Date(Date.now() - 3 * 3600_000).toISOString();
    await store.append('runs/catchup', {
      outcome: 'success',
      exit_code: 0,
      started_at: past,
      finished_at: past,
      duration: 0,
      fail_reason: null,
      resources: null,
    });
    await store.close();

    first = startDaemon(dir);
    await waitFor(
      () =>
        lastCount(first.out) >= 3 &&
        first.out.includes('caught-up') &&
        first.err.includes('scheduled to be retried (#1)'),
      30_000,
      `first daemon; stderr:\n${first.err}`,
    );
    retriesBefore = await pendingRetries(first);
    await stopDaemonRun(first);
    second = startDaemon(dir);
    await waitFor(
      () => lastCount(second.out) > lastCount(first.out) && second.out.includes('LOST'),
      30_000,
      `second daemon; stderr:\n${second.err}`,
    );
    for (let i = 0; i < 50 && retriesAfter.length === 0; i++) {
      retriesAfter = await pendingRetries(second);
      if (retriesAfter.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    await stopDaemonRun(second);
    const after = await openStore({
      path: statePath,
      namespace: 'test-fleet',
      topology: 'single-node',
      inline: true,
    });
    try {
      for (const name of ['catchup', 'secret-job', 'env-check'])
        ledger.set(
          name,
          (await after.list(`runs/${name}`)).map(
            (r) => r.data as { trigger?: string; scheduled_at?: string | null },
          ),
        );
    } finally {
      await after.close();
    }
  }, 90_000);

  afterAll(() => {
    for (const r of [first, second]) if (r && r.child.exitCode === null) r.child.kill('SIGKILL');
  });

  it('gives jobs the run identity and the cronstable CLI', () => {
    expect(first.out).toMatch(/run=[0-9a-f]{32} job=env-check attempt=0 url=http:\/\/127\.0\.0\.1:\d+/);
  });

  it('continues a durable counter across a restart', () => {
    const a = lastCount(first.out);
    expect(second.out).toContain(`count=${a + 1}`);
  });

  it('lets exactly one run win an idempotency claim, across restarts', () => {
    const all = first.out + second.out;
    expect(all.match(/WON/g)).toHaveLength(1);
    expect(all).toContain('LOST 5');
  });

  it('catches up a missed slot once (run-once) and not again after the restart', () => {
    const catchups = ledger.get('catchup')!.filter((r) => r.trigger === 'catchup');
    expect(catchups).toHaveLength(1);
    // run-once: the latest missed hourly slot.
    const hour = new Date(Math.floor(Date.parse(catchups[0]!.scheduled_at!) / 3_600_000) * 3_600_000);
    expect(catchups[0]!.scheduled_at).toBe(hour.toISOString());
    expect(Date.now() - hour.getTime()).toBeLessThan(2 * 3_600_000);
    expect(first.out.match(/caught-up/g)).toHaveLength(1);
    expect(second.out).not.toContain('caught-up');
  });

  it('re-arms a pending durable retry after a restart', () => {
    const armed = retriesBefore.find((r) => r.job === 'retrying');
    expect(armed).toMatchObject({ attempt: 1, nextRetryAt: expect.any(String) });
    // The same attempt, due at the same instant (the remaining delay shrank meanwhile).
    expect(retriesAfter.find((r) => r.job === 'retrying')).toMatchObject({
      attempt: 1,
      nextRetryAt: armed!.nextRetryAt,
    });
  });

  it('runs @reboot jobs once per boot', () => {
    expect(ledger.get('secret-job')!.map((r) => r.trigger)).toEqual(['reboot']);
    expect(ledger.get('env-check')!.map((r) => r.trigger)).toEqual(['reboot']);
    expect(second.out).not.toContain('password=');
  });

  it('stages run-scoped secrets and scrubs them from the archived output', async () => {
    expect(first.out).toContain('password=tok-Zq81-secret-value');
    const store = await openStore({
      path: join(dir, 'state'),
      namespace: 'test-fleet',
      topology: 'single-node',
      inline: true,
    });
    try {
      const archived = await store.newest('logs/secret-job');
      const data = archived!.data as { redacted: boolean; lines: { stream: string; line: string }[] };
      expect(data.redacted).toBe(true);
      expect(JSON.stringify(data.lines)).not.toContain('tok-Zq81-secret-value');
      expect(data.lines[0]!.line).toContain('***REDACTED***');
      // The ledger also holds the slots Forbid skipped (a run that outlasts its second): count runs.
      const runs = (await store.list('runs/counter')).filter((r) => (r.data as { run_id: unknown }).run_id);
      expect(runs.length).toBeGreaterThanOrEqual(lastCount(second.out) - 1);
      expect((runs[0]!.data as { outcome: string }).outcome).toBe('success');
    } finally {
      await store.close();
    }
  });
});
