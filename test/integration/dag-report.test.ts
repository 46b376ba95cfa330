// Spec 04 §11 on one real daemon: a task with `statsd` sends the job's start and stop datagrams to a
// real UDP socket under its own prefix (with cpu and max_rss when monitored), `monitorResources`
// puts the attempt's CPU and peak RSS into the entry's `resources`, and the live log served over
// HTTP has the task's run-scoped secret values and the pattern rules redacted.
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTree } from '../helpers/tmp.ts';
import { api, type Daemon, startDaemon, stopDaemon, trigger, waitRun, writeConfig } from './dag-helpers.ts';
import { readSse } from './web-harness.ts';

const SECRET = 's3cr3t-value-9f8e7d';
let dir: string;
let d: Daemon;
let udp: Socket;
const datagrams: string[] = [];

beforeAll(async () => {
  udp = createSocket('udp4');
  udp.on('message', (m) => datagrams.push(m.toString('utf8')));
  await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
  const port = (udp.address() as AddressInfo).port;
  dir = writeTree({}, true);
  const node = process.execPath;
  writeConfig(
    dir,
    `  - name: metered
    tasks:
      - id: burn
        statsd:
          prefix: dags.metered.burn
          host: 127.0.0.1
          port: ${port}
        monitorResources:
          interval: 0.1
        command: ${node} -e "const b = Buffer.alloc(96 * 1024 * 1024, 1); const t = Date.now(); while (Date.now() - t < 900) {} console.log(b.length)"
      - id: flaky
        dependsOn:
          - burn
        statsd:
          prefix: dags.metered.flaky
          host: 127.0.0.1
          port: ${port}
        command: exit 3
  - name: probe
    tasks:
      - id: wait
        type: sensor
        pokeIntervalSeconds: 1
        # 5 s for the three pokes asserted below: a poke's own process can take over a second on a
        # saturated machine, and 3 s then held only two.
        pokeTimeoutSeconds: 5
        command: exit 1
      - id: again
        retries: 1
        retryDelaySeconds: 2
        command: exit 4
  - name: bounded
    tasks:
      - id: sleepy
        executionTimeout: 1
        killTimeout: 1
        command: sleep 30
      - id: gate
        type: approval
  - name: leaky
    tasks:
      - id: talk
        captureStdout: true
        secrets:
          - name: token
            fromEnvVar: DAG_LEAK_TOKEN
        command: >-
          echo "token is $(cronstable secret get token)"; echo "password=hunter2"; sleep 1.5;
          echo "again $(cronstable secret get token)"; echo "-----BEGIN RSA PRIVATE KEY-----";
          echo "MIIEowIBAAKCAQEAx"; echo "-----END RSA PRIVATE KEY-----"; echo done
`,
    '  metrics: true\n',
  );
  d = await startDaemon(dir, { DAG_LEAK_TOKEN: SECRET });
}, 30_000);

afterAll(async () => {
  if (d) await stopDaemon(d);
  udp?.close();
});

describe('DAG task statsd and resources (spec 04 §11)', () => {
  it('sends start/stop datagrams per attempt and records the monitored attempt resources', async () => {
    const key = await trigger(d, 'metered');
    const run = await waitRun(d, 'metered', key, (r) => r.state !== 'running');
    expect(run.state).toBe('failed');
    const burn = run.tasks.burn as unknown as { state: string; resources: Record<string, number> };
    expect(burn.state).toBe('success');
    expect(burn.resources.samples).toBeGreaterThanOrEqual(2);
    expect(burn.resources.cpuSeconds).toBeGreaterThan(0.2);
    expect(burn.resources.maxRssBytes).toBeGreaterThan(64 * 1024 * 1024);
    expect((run.tasks.flaky as unknown as { resources: unknown }).resources).toBeNull();

    const until = Date.now() + 5000;
    while (datagrams.length < 4 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    const burnDg = datagrams.filter((m) => m.startsWith('dags.metered.burn.'));
    expect(burnDg[0]).toBe('dags.metered.burn.start:1|g\n');
    const stop = burnDg[1]!.split('\n');
    expect(stop.slice(0, 2)).toEqual(['dags.metered.burn.stop:1|g', 'dags.metered.burn.success:1|g']);
    expect(stop[2]).toMatch(/^dags\.metered\.burn\.duration:\d+\|ms$/);
    expect(Number(/:(\d+)\|/.exec(stop[2]!)![1])).toBeGreaterThanOrEqual(800);
    expect(stop[3]).toMatch(/^dags\.metered\.burn\.cpu:\d+\|ms$/);
    expect(Number(/max_rss:(\d+)\|g/.exec(stop[4]!)![1])).toBe(burn.resources.maxRssBytes);
    expect(datagrams.filter((m) => m.startsWith('dags.metered.flaky.'))).toEqual([
      'dags.metered.flaky.start:1|g\n',
      expect.stringMatching(
        /^dags\.metered\.flaky\.stop:1\|g\ndags\.metered\.flaky\.success:0\|g\ndags\.metered\.flaky\.duration:\d+\|ms\n$/,
      ),
    ]);
  }, 30_000);
});

describe('the run document fields the dashboard Tasks tab reads (spec 04 §4.3)', () => {
  it("exposes a sensor's pokeCount / firstPokeAt / nextPokeAt / proc and a retry's nextRetryAt", async () => {
    const key = await trigger(d, 'probe');
    type Entry = {
      state: string;
      pokeCount?: number;
      firstPokeAt?: number | null;
      nextPokeAt?: number | null;
      proc?: string | null;
      nextRetryAt?: number | null;
      failReason: string | null;
      attempt: number;
    };
    const entries = (r: { tasks: Record<string, unknown> }) => r.tasks as Record<string, Entry>;
    const idle = await waitRun(d, 'probe', key, (r) => {
      const w = entries(r).wait!;
      return (w.pokeCount ?? 0) >= 1 && w.proc === null && entries(r).again!.state === 'up_for_retry';
    });
    const w = entries(idle).wait!;
    expect(w.state).toBe('running');
    expect(w.nextPokeAt!).toBeGreaterThan(w.firstPokeAt!);
    const again = entries(idle).again!;
    expect(again).toMatchObject({ attempt: 1, failReason: 'failsWhen=nonzeroReturn and retcode=4' });
    expect(again.nextRetryAt).toEqual(expect.any(Number));
    const done = await waitRun(d, 'probe', key, (r) => r.state !== 'running', 20_000);
    expect(entries(done).wait).toMatchObject({ state: 'failed', failReason: 'sensor timed out' });
    expect(entries(done).wait!.pokeCount!).toBeGreaterThanOrEqual(3);
    expect(entries(done).again).toMatchObject({ state: 'failed', attempt: 2, nextRetryAt: null });
  }, 30_000);
});

describe('timeouts, decision status codes and Prometheus (spec 04 §2.3, §9, §11)', () => {
  it('an executionTimeout kill fails the attempt; decisions answer 409 with the reason; 400 for a bad body', async () => {
    const key = await trigger(d, 'bounded');
    const parked = await waitRun(d, 'bounded', key, (r) => r.tasks.gate!.awaitingApproval === true);
    const base = `/dags/bounded/runs/${key}/tasks`;
    const decide = (path: string, body: unknown) => api(d, 'POST', path, body);
    expect(await decide(`/dags/nope/runs/${key}/tasks/gate/decision`, { decision: 'approve' })).toMatchObject(
      {
        status: 409,
        json: { error: 'no such dag' },
      },
    );
    expect(
      await decide(`/dags/bounded/runs/nope/tasks/gate/decision`, { decision: 'approve' }),
    ).toMatchObject({
      status: 409,
      json: { error: 'no such run' },
    });
    expect(await decide(`${base}/ghost/decision`, { decision: 'approve' })).toMatchObject({
      status: 409,
      json: { error: 'no such task' },
    });
    expect(await decide(`${base}/sleepy/decision`, { decision: 'approve' })).toMatchObject({
      status: 409,
      json: { error: 'task is not awaiting approval' },
    });
    expect(await decide(`${base}/gate/decision`, { decision: 'maybe' })).toMatchObject({
      status: 400,
      json: { error: "decision must be 'approve' or 'reject'" },
    });
    expect(parked.tasks.gate!.approval).toBeNull();
    expect(await decide(`${base}/gate/decision`, { decision: 'approve' })).toMatchObject({
      status: 200,
      json: { ok: true, state: 'success' },
    });
    const done = await waitRun(d, 'bounded', key, (r) => r.state !== 'running', 20_000);
    const sleepy = done.tasks.sleepy!;
    expect(sleepy).toMatchObject({ state: 'failed', attempt: 1 });
    expect(sleepy.exitCode).not.toBe(0);
    expect(sleepy.failReason).toMatch(/^failsWhen=nonzeroReturn and retcode=/);
    expect(sleepy.finishedAt! - sleepy.startedAt!).toBeLessThan(10);
    expect(done.state).toBe('failed');
    expect(d.err).toContain(`dag run bounded/${key} reached a terminal state (failed)`);
  }, 30_000);

  it('/metrics has no DAG or task series', async () => {
    const res = await fetch(`${d.base}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('cronstable_');
    for (const name of ['metered', 'burn', 'bounded', 'sleepy', 'probe', 'leaky'])
      expect(text).not.toContain(name);
  });
});

describe('DAG task output redaction', () => {
  it('redacts staged secret values and the pattern rules from the live log, in the replay and as it follows', async () => {
    const key = await trigger(d, 'leaky');
    await waitRun(d, 'leaky', key, (r) => r.tasks.talk!.state === 'running' && r.tasks.talk!.pid !== null);
    // The first two lines are in the replayed tail; the rest arrive while following.
    await new Promise((r) => setTimeout(r, 300));
    const events = await readSse(await fetch(`${d.base}/dags/leaky/runs/${key}/tasks/talk/logs`));
    const lines = events.filter((e) => e.event === 'line').map((e) => (e.data as { line: string }).line);
    expect(lines).toEqual([
      'token is ***REDACTED***',
      'password=***REDACTED***',
      'again ***REDACTED***',
      '***REDACTED***',
      '***REDACTED***',
      '***REDACTED***',
      'done',
    ]);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    const run = await waitRun(d, 'leaky', key, (r) => r.state !== 'running');
    expect(run.state).toBe('success');
  }, 30_000);
});
