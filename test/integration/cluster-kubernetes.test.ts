// The Kubernetes backend (spec 05 §10) against an in-test HTTPS server implementing the Lease
// endpoints with real resourceVersion conflicts (test/helpers/k8s-lease-server.ts): no real API
// server can be installed here. What is Kubernetes' own: the Lease's shape, takeover by the
// observer's monotonic clock after a real SIGSTOP, 409 races, token rotation, a deleted Lease,
// RBAC, kubeconfig. Acquire (with the /cluster lease block), renew, lose, fence, release, fail
// over, clock skew and an unreachable API server are the conformance suite's
// (lease-conformance-*.test.ts), run against this backend like every other.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubernetesBackend } from '../../src/cluster/kubernetes/index.ts';
import type { ClusterSection } from '../../src/config/file-schema.ts';
import { fixtureArgs } from '../helpers/fixture-bundle.ts';
import { type LeaseServer, startLeaseServer } from '../helpers/k8s-lease-server.ts';
import { leaseTestHost, type TestHost, waitFor } from '../helpers/lease-host.ts';
import { writeTree } from '../helpers/tmp.ts';

const CONTENDER = join(import.meta.dirname, '..', 'helpers', 'lease-contender.ts');
const NS = 'cronstable-test';
const DURATION = 4;
const RETRY = 1;
const MICROTIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('kubernetes backend against an in-test Lease API', () => {
  let api: LeaseServer;
  let leaseNo = 0;
  const running: KubernetesBackend[] = [];
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    api = await startLeaseServer({ namespace: NS });
  });
  afterEach(async () => {
    for (const c of children.splice(0)) {
      if (c.exitCode === null && c.signalCode === null) {
        c.kill('SIGCONT');
        c.kill('SIGKILL');
      }
    }
    await Promise.all(running.splice(0).map((b) => b.stop()));
    await api.close();
  });

  const env = () => ({
    KUBERNETES_SERVICE_HOST: '127.0.0.1',
    KUBERNETES_SERVICE_PORT: String(api.port),
    CRONSTABLE_K8S_SERVICEACCOUNT_DIR: api.serviceAccountDir,
  });

  function section(extra: Record<string, unknown> = {}): ClusterSection {
    leaseNo++;
    return {
      backend: 'kubernetes',
      connectTimeout: 2,
      kubernetes: {
        leaseName: `cronstable-leader-${leaseNo}`,
        leaseDurationSeconds: DURATION,
        renewDeadlineSeconds: 2,
        retryPeriodSeconds: RETRY,
        ...extra,
      },
    };
  }

  function backend(cluster: ClusterSection, name: string, e: NodeJS.ProcessEnv = env()) {
    const host: TestHost = leaseTestHost(name);
    const b = new KubernetesBackend(cluster, host, e);
    running.push(b);
    return { b, host };
  }

  const leaders = (bs: KubernetesBackend[]) => bs.filter((b) => b.report().is_leader);
  const spec = (cluster: ClusterSection) =>
    api.lease(NS, cluster.kubernetes!.leaseName!)?.spec as Record<string, unknown> | undefined;

  async function neverTwoLeaders(bs: KubernetesBackend[], ms: number): Promise<void> {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      expect(leaders(bs).length).toBeLessThanOrEqual(1);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  function spawnContender(cluster: ClusterSection, name: string) {
    const child = spawn(
      process.execPath,
      [...fixtureArgs(CONTENDER), 'kubernetes', name, JSON.stringify(cluster)],
      { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, ...env() } },
    );
    children.push(child);
    const view = { leads: false, linesAfter: [] as { is_leader: boolean }[], record: false };
    child.stdout!.on('data', (c: Buffer) => {
      for (const line of c.toString().split('\n').filter(Boolean)) {
        const v = JSON.parse(line) as { is_leader: boolean };
        view.leads = v.is_leader;
        if (view.record) view.linesAfter.push(v);
      }
    });
    return { child, view };
  }

  it('three contenders: one creates a well-formed Lease, the others get 409 and follow; renewals move only renewTime', async () => {
    const cluster = section();
    const nodes = ['k8s-a', 'k8s-b', 'k8s-c'].map((n) => backend(cluster, n).b);
    await Promise.all(nodes.map((b) => b.start()));
    await waitFor(() => leaders(nodes).length === 1, 3000, 'one leader');
    const leader = leaders(nodes)[0]!.report().node_name;
    const s = spec(cluster)!;
    expect(s.holderIdentity).toMatch(new RegExp(`^${leader}#[0-9a-f]{12}$`));
    expect(s.leaseDurationSeconds).toBe(DURATION);
    expect(s.leaseTransitions).toBe(0);
    expect(s.acquireTime).toMatch(MICROTIME);
    expect(s.renewTime).toMatch(MICROTIME);
    // Three creates raced; the losers got 409 AlreadyExists and then followed.
    const posts = api.requests.filter((r) => r.method === 'POST');
    expect(posts.filter((r) => r.status === 201)).toHaveLength(1);
    // Renewals keep acquireTime and transitions; only renewTime moves.
    const before = spec(cluster)!;
    await waitFor(() => spec(cluster)!.renewTime !== before.renewTime, 3000, 'a renew');
    const after = spec(cluster)!;
    expect(after.acquireTime).toBe(before.acquireTime);
    expect(after.leaseTransitions).toBe(0);
    expect(after.holderIdentity).toBe(before.holderIdentity);
  });

  it('a holder that stops renewing (SIGSTOP) is replaced once a duration passes on the observer clock, and wakes up demoted', async () => {
    const cluster = section();
    const holder = spawnContender(cluster, 'k8s-child');
    await waitFor(() => holder.view.leads, 15_000, 'the child leads');
    const nodes = ['k8s-b', 'k8s-c'].map((n) => backend(cluster, n).b);
    await Promise.all(nodes.map((b) => b.start()));
    expect(nodes.map((b) => b.report().leader)).toEqual(['k8s-child', 'k8s-child']);
    const acquired = spec(cluster)!.acquireTime;
    const pausedAt = performance.now();
    holder.child.kill('SIGSTOP');
    await waitFor(() => leaders(nodes).length === 1, (DURATION + RETRY + 2) * 1000, 'takeover');
    const took = performance.now() - pausedAt;
    // Not before the record sat unchanged for a duration (its last renew was ≤ RETRY before the pause).
    expect(took).toBeGreaterThanOrEqual((DURATION - RETRY) * 1000 - 200);
    expect(took).toBeLessThanOrEqual((DURATION + RETRY + 1) * 1000);
    const s = spec(cluster)!;
    expect(s.leaseTransitions).toBe(1);
    expect(s.acquireTime).not.toBe(acquired);
    // The paused holder wakes: its deadline has passed, so it never claims leadership again.
    holder.view.record = true;
    holder.child.kill('SIGCONT');
    await new Promise((r) => setTimeout(r, 2500));
    expect(holder.view.linesAfter.length).toBeGreaterThan(0);
    expect(holder.view.linesAfter.every((v) => !v.is_leader)).toBe(true);
    await neverTwoLeaders(nodes, 500);
  });

  it('409 races: many writers on one resourceVersion, one wins; a follower writing the ran-set does not unseat the holder', async () => {
    const cluster = section();
    const nodes = ['k8s-a', 'k8s-b', 'k8s-c', 'k8s-d', 'k8s-e'].map((n) => backend(cluster, n));
    await Promise.all(nodes.map((n) => n.b.start()));
    const bs = nodes.map((n) => n.b);
    await waitFor(() => leaders(bs).length === 1, 3000, 'one leader');
    expect(api.requests.some((r) => r.status === 409)).toBe(true);
    const leader = leaders(bs)[0]!;
    const follower = nodes.find((n) => n.b !== leader)!;
    expect(follower.b.rebootRan('warm-cache')).toBe(false);
    await follower.b.recordRebootRan('warm-cache');
    const annotations = (api.lease(NS, cluster.kubernetes!.leaseName!)!.metadata as Record<string, unknown>)
      .annotations as Record<string, string>;
    expect(JSON.parse(annotations['cronstable.io/reboot-ran']!)).toEqual({
      jobSetId: 'v1:test',
      jobs: ['warm-cache'],
    });
    // Another writer slips in between the leader's read and its renew: the renew gets 409, the
    // leader re-reads and renews in the same round, and keeps leading throughout.
    const mark = api.requests.length;
    api.interleaveBeforeNextPut(NS, cluster.kubernetes!.leaseName!);
    await waitFor(
      () => api.requests.slice(mark).some((r) => r.method === 'PUT' && r.status === 409),
      3000,
      'a 409',
    );
    const conflict = api.requests.slice(mark).find((r) => r.method === 'PUT' && r.status === 409)!;
    const retried = () =>
      api.requests.find((r) => r.method === 'PUT' && r.status === 200 && r.at > conflict.at);
    await waitFor(() => retried() !== undefined, 3000, 'the renew retried');
    // Within the same round (the next round is a retry period away).
    expect(retried()!.at - conflict.at).toBeLessThan(RETRY * 1000 * 0.5);
    expect(spec(cluster)!.holderIdentity).toMatch(new RegExp(`^${leader.report().node_name}#`));
    const end = performance.now() + 3000;
    while (performance.now() < end) {
      expect(leaders(bs)).toEqual([leader]);
      await new Promise((r) => setTimeout(r, 50));
    }
    await waitFor(
      () => bs.every((b) => b.rebootRan('warm-cache') === true),
      3000,
      'everyone read the ran-set',
    );
    nodes[0]!.host.setJobSetId('v1:another');
    expect(nodes[0]!.b.rebootRan('warm-cache')).toBe(false);
  });

  it('the token file is re-read before each request (rotation), and a refused token fails closed', async () => {
    const cluster = section();
    const a = backend(cluster, 'k8s-a');
    await a.b.start();
    expect(a.b.report().is_leader).toBe(true);
    api.rotateToken('token-1');
    const rotatedAt = api.requests.length;
    await new Promise((r) => setTimeout(r, (RETRY + 0.5) * 1000));
    const since = api.requests.slice(rotatedAt);
    expect(since.length).toBeGreaterThan(0);
    expect(since.every((r) => r.token === 'token-1' && r.status !== 401)).toBe(true);
    expect(a.b.report().is_leader).toBe(true);
    // The server stops accepting what the file says: every round gets 401, leadership lapses.
    const refusedAt = performance.now();
    api.acceptOnly('token-2');
    await waitFor(() => !a.b.report().is_leader, DURATION * 1000, 'demoted');
    expect(performance.now() - refusedAt).toBeLessThanOrEqual((DURATION - 1) * 1000 + 500);
    expect(a.host.lines.some((l) => l.includes('HTTP 401'))).toBe(true);
    expect(a.b.decide('job', 'Leader').run).toBe(false);
  });

  it('a deleted Lease under a live holder is not recreated by another node before the holder would expire', async () => {
    const cluster = section();
    const nodes = ['k8s-a', 'k8s-b'].map((n) => backend(cluster, n).b);
    await Promise.all(nodes.map((b) => b.start()));
    await waitFor(() => leaders(nodes).length === 1, 3000, 'one leader');
    const holder = leaders(nodes)[0]!;
    // The holder keeps renewing: it recreates the object itself (its own token, not a stranger's).
    const follower = nodes.find((b) => b !== holder)!;
    const name = holder.report().node_name;
    api.deleteLease(NS, cluster.kubernetes!.leaseName!);
    const end = performance.now() + 2500;
    let led = 0;
    while (performance.now() < end) {
      // On a loaded machine a round that outlives the renew deadline makes the holder fail closed
      // for a moment (no leader, as in the conformance suite's renew case); the follower never
      // takes over.
      const now = leaders(nodes);
      expect(now.filter((b) => b !== holder)).toEqual([]);
      if (now.length === 1) led++;
      // The follower keeps deferring to the holder it remembers, even while the object is gone.
      expect(follower.report().leader).toBe(name);
      expect(follower.decide('job', 'PreferLeader').run).toBe(false);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(led).toBeGreaterThan(0);
    await waitFor(() => leaders(nodes)[0] === holder, 3000, 'the holder leads on its recreated Lease');
    expect(leaders(nodes)).toEqual([holder]);
    expect(spec(cluster)!.holderIdentity).toMatch(new RegExp(`^${holder.report().node_name}#`));
  });

  it('stop() while start() is still running waits for it and leaves no holder behind', async () => {
    const cluster = section();
    const a = backend(cluster, 'k8s-a');
    const starting = a.b.start();
    await a.b.stop();
    await starting;
    expect(a.b.report().is_leader).toBe(false);
    const held = spec(cluster)?.holderIdentity;
    expect(held === undefined || held === null).toBe(true);
  });

  it('reads that succeed while writes are forbidden do not make a node quorate', async () => {
    api.forbidWrites(true);
    const cluster = section();
    const a = backend(cluster, 'k8s-a');
    await a.b.start();
    expect(a.host.lines.some((l) => l.includes('HTTP 403'))).toBe(true);
    expect(a.b.report()).toMatchObject({ is_leader: false, quorate: false, leader: null });
    expect(a.b.decide('job', 'Leader')).toMatchObject({ run: false, transient: true });
    expect(a.b.decide('job', 'PreferLeader')).toEqual({ run: true });
    api.forbidWrites(false);
    await waitFor(() => a.b.report().is_leader, (RETRY + 1) * 1000, 'leads once writes are allowed');
  });

  it('clientLibrary: library fails start; no credentials fails start', async () => {
    const lib = backend(section({ clientLibrary: 'library' }), 'k8s-a');
    await expect(lib.b.start()).rejects.toThrow(/library/);
    const none = backend(section(), 'k8s-b', {});
    await expect(none.b.start()).rejects.toThrow(/KUBERNETES_SERVICE_HOST/);
  });

  it('a kubeconfig with a static token, its context namespace and an apiServer override', async () => {
    const dir = writeTree({});
    const kubeconfig = join(dir, 'config');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'preferences: {}',
        'current-context: test',
        'clusters:',
        '- name: test-cluster',
        '  cluster:',
        `    certificate-authority: ${api.caFile}`,
        '    server: https://127.0.0.1:1',
        'contexts:',
        '- name: test',
        '  context:',
        '    cluster: test-cluster',
        '    user: tester',
        '    namespace: team-a',
        'users:',
        '- name: tester',
        '  user:',
        '    token: token-0',
        '',
      ].join('\n'),
    );
    const cluster = section({ kubeconfig, apiServer: api.url });
    const a = backend(cluster, 'k8s-a', {});
    await a.b.start();
    expect(a.b.report().is_leader).toBe(true);
    expect(a.b.report().lease).toMatchObject({ namespace: 'team-a' });
    expect(api.lease('team-a', cluster.kubernetes!.leaseName!)).toBeDefined();
  });
});
