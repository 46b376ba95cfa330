// The cluster manager (spec 05 §2, §5.1, §7, §12.3) over in-test backends on the fake clock:
// a rejected start leaves no running backend, config and TLS changes rebuild it, shutdown stops
// it, advisories come once per build, transitions are counted; plus the registry the config
// layer mirrors (issue 10 item 1).
import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS } from '../../src/cluster/backends.ts';
import {
  ClusterManager,
  electionConfigured,
  type RoleChange,
  tlsFilesOf,
} from '../../src/cluster/manager.ts';
import type {
  BackendFactory,
  BackendKind,
  ClusterBackend,
  ClusterHost,
  ClusterReport,
  Leadership,
} from '../../src/cluster/types.ts';
import type { ConfigIssue } from '../../src/config/errors.ts';
import type { ClusterSection } from '../../src/config/file-schema.ts';
import { loadConfig } from '../../src/config/load.ts';
import { checkCluster } from '../../src/config/sections.ts';
import { CLUSTER_BACKENDS } from '../../src/util/backend-kinds.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { noConflicts } from '../helpers/no-conflicts.ts';
import { writeTree } from '../helpers/tmp.ts';

describe('the backend registry', () => {
  it('the config layer names exactly the kinds src/cluster/backends.ts can load', () => {
    expect([...CLUSTER_BACKENDS].sort()).toEqual(Object.keys(BACKENDS).sort());
  });

  it('a cluster: naming a backend this build lacks fails at load, with file:line:key', () => {
    const dir = writeTree({
      'c.yaml': `jobs:\n  - name: j\n    command: x\n    schedule: "* * * * *"\ncluster:\n  backend: zookeeper\n`,
    });
    expect(() => loadConfig(join(dir, 'c.yaml'))).toThrow(
      /c\.yaml:6:12: cluster\.backend: expected one of 'gossip', 'filesystem', 'etcd', 'kubernetes', found 'zookeeper'/,
    );
    // A kind the schema knows but a build lacks (the check takes the build's list), here etcd.
    const issues: ConfigIssue[] = [];
    checkCluster({ backend: 'etcd' }, { file: 'c.yaml', line: 5, col: 1 }, issues, [], ['gossip']);
    expect(issues.map((i) => i.message)).toEqual([
      'cluster: the etcd backend is not available in this build (available: gossip); without it every node would run every Leader job',
    ]);
  });
});

class FakeBackend implements ClusterBackend {
  started = 0;
  stopped = 0;
  leader = false;
  quorate = false;
  constructor(
    readonly kind: BackendKind,
    readonly section: ClusterSection,
    readonly host: ClusterHost,
    private readonly failStart: string | null,
  ) {}
  async start(): Promise<void> {
    this.started++;
    if (this.failStart) throw new Error(this.failStart);
  }
  async stop(): Promise<void> {
    this.stopped++;
  }
  decide(): Leadership {
    return this.leader ? { run: true } : { run: false, reason: 'follower', transient: true };
  }
  owners: Record<string, string | null> | null = null;
  ownerOf(_name: string, policy: string): string | null | undefined {
    return this.owners ? (this.owners[policy] ?? null) : undefined;
  }
  report(): ClusterReport {
    return {
      backend: this.kind,
      node_name: this.host.nodeName,
      cluster_size: 1,
      quorum: 1,
      elect_leader: true,
      distribution: 'single-leader',
      ...noConflicts(),
      quorate: this.quorate,
      leader: this.leader ? this.host.nodeName : null,
      is_leader: this.leader,
      peers: [],
    };
  }
  rebootRan(): boolean {
    return false;
  }
  async recordRebootRan(): Promise<void> {}
}

interface Kit {
  clock: FakeClock;
  manager: ClusterManager;
  built: FakeBackend[];
  logs: string[];
  failStart: { value: string | null };
  changes: RoleChange[];
}

function kit(kinds: BackendKind[] = ['filesystem', 'gossip']): Kit {
  const clock = new FakeClock(Date.parse('2026-02-01T00:00:00Z'));
  const built: FakeBackend[] = [];
  const logs: string[] = [];
  const failStart = { value: null as string | null };
  const changes: RoleChange[] = [];
  const factory =
    (kind: BackendKind): BackendFactory =>
    (section, host) => {
      const b = new FakeBackend(kind, section, host, failStart.value);
      built.push(b);
      return b;
    };
  const backends = Object.fromEntries(kinds.map((k) => [k, async () => factory(k)]));
  const manager = new ClusterManager({
    clock,
    log: {
      info: (m) => logs.push(`INFO ${m}`),
      warning: (m) => logs.push(`WARNING ${m}`),
      error: (m) => logs.push(`ERROR ${m}`),
    },
    jobSetId: () => 'v1:x',
    jobSummaries: () => ({}),
    store: () => null,
    backends,
    fleetMesh: async () => factory('gossip'),
    hostname: 'the-host',
    tlsCheckMs: 5_000,
    onRoleChange: (c) => changes.push(c),
  });
  return { clock, manager, built, logs, failStart, changes };
}

const fs = (extra: Partial<ClusterSection> = {}): ClusterSection => ({
  backend: 'filesystem',
  filesystem: { path: '/shared' },
  ...extra,
});

const stops: ClusterManager[] = [];
afterEach(async () => {
  for (const m of stops.splice(0)) await m.stop();
});

describe('ClusterManager', () => {
  it('starts the backend named by the section, with nodeName or the hostname', async () => {
    const k = kit();
    stops.push(k.manager);
    await k.manager.apply(fs());
    expect(k.built.map((b) => [b.kind, b.started, b.host.nodeName])).toEqual([['filesystem', 1, 'the-host']]);
    expect(k.manager.backend()).toBe(k.built[0]);
    expect(k.manager.electionOn()).toBe(true);
    expect(k.logs).toContain('INFO cluster: the filesystem backend runs as node the-host');
    await k.manager.apply(fs({ nodeName: 'node-7' }));
    expect(k.built.map((b) => [b.started, b.stopped, b.host.nodeName])).toEqual([
      [1, 1, 'the-host'],
      [1, 0, 'node-7'],
    ]);
  });

  it('a rejected start leaves no running backend, logs an error, and the manager keeps going', async () => {
    const k = kit();
    stops.push(k.manager);
    k.failStart.value = 'listen EADDRINUSE 127.0.0.1:8443';
    await k.manager.apply(fs());
    expect(k.manager.backend()).toBeNull();
    expect(k.manager.report()).toBeNull();
    expect(k.manager.electionOn()).toBe(true);
    expect(k.built[0]!.stopped).toBe(1);
    expect(k.logs).toContain(
      'ERROR cluster: the filesystem backend could not start: listen EADDRINUSE 127.0.0.1:8443; Leader jobs are skipped, PreferLeader and EveryNode jobs run',
    );
  });

  it('a kind this build lacks is an error at start, not a silent single node', async () => {
    const k = kit(['gossip']);
    stops.push(k.manager);
    await k.manager.apply(fs());
    expect(k.manager.backend()).toBeNull();
    expect(k.logs.some((l) => l.startsWith('ERROR cluster: the filesystem backend is not available'))).toBe(
      true,
    );
  });

  it('an unchanged section is not rebuilt; advisories are logged once per build', async () => {
    const k = kit();
    stops.push(k.manager);
    await k.manager.apply(fs(), ['cluster: a note']);
    await k.manager.apply(fs(), ['cluster: a note']);
    expect(k.built).toHaveLength(1);
    expect(k.logs.filter((l) => l === 'WARNING cluster: a note')).toHaveLength(1);
    await k.manager.apply(null);
    expect(k.built[0]!.stopped).toBe(1);
    expect(k.manager.backend()).toBeNull();
    expect(k.manager.configured()).toBe(false);
  });

  it('rebuilds when a TLS file changes (mtime, size); keeps the old backend while the new files do not load', async () => {
    const dir = writeTree({ 'ca.pem': 'ca', 'a.pem': 'cert', 'a.key': 'key' });
    const section = fs({
      observability: {
        listen: '127.0.0.1:1',
        tls: { ca: join(dir, 'ca.pem'), cert: join(dir, 'a.pem'), key: join(dir, 'a.key') },
        peers: [],
      },
    });
    expect(tlsFilesOf(section)).toHaveLength(3);
    const k = kit();
    stops.push(k.manager);
    await k.manager.apply(section);
    // The lease backend and its observability mesh.
    expect(k.built.map((b) => b.kind)).toEqual(['filesystem', 'gossip']);
    expect(k.manager.report()?.fleet).toBe(true);
    writeFileSync(join(dir, 'a.pem'), 'a renewed cert');
    utimesSync(join(dir, 'a.pem'), new Date(), new Date(Date.now() + 5000));
    await k.clock.advance(6_000);
    await k.manager.apply(section);
    expect(k.built.map((b) => [b.kind, b.stopped])).toEqual([
      ['filesystem', 1],
      ['gossip', 1],
      ['filesystem', 0],
      ['gossip', 0],
    ]);
    rmSync(join(dir, 'a.key'));
    await k.clock.advance(6_000);
    await k.manager.apply(section);
    expect(k.built).toHaveLength(4);
    expect(k.logs.some((l) => l.startsWith('WARNING cluster: the new TLS files do not load yet'))).toBe(true);
  });

  it('counts and logs leadership and quorum transitions on its cadence; stop releases', async () => {
    const k = kit();
    await k.manager.apply(fs());
    const b = k.built[0]!;
    b.quorate = true;
    b.leader = true;
    await k.clock.advance(1000);
    b.leader = false;
    await k.clock.advance(1000);
    b.quorate = false;
    await k.clock.advance(1000);
    await k.clock.advance(1000);
    expect([k.manager.leaderTransitions, k.manager.quorumTransitions]).toEqual([2, 2]);
    expect(k.logs.filter((l) => l.startsWith('INFO cluster: ') && !l.includes('runs as'))).toEqual([
      'INFO cluster: quorum reached',
      'INFO cluster: this node is now the leader',
      'INFO cluster: this node is no longer the leader (leader: none)',
      'INFO cluster: quorum lost',
    ]);
    await k.manager.stop();
    expect(b.stopped).toBe(1);
    expect(k.clock.pendingTimers()).toBe(0);
    // The same flips, told to the notify hook (spec 09 §5.2); the stop itself tells nothing.
    expect(k.changes).toEqual([
      { what: 'quorum', now: true, leader: 'the-host', reload: false },
      { what: 'leader', now: true, leader: 'the-host', reload: false },
      { what: 'leader', now: false, leader: null, reload: false },
      { what: 'quorum', now: false, leader: null, reload: false },
    ]);
  });

  it('tells a reload that stops a leading, quorate manager as a reload; shutdown tells nothing', async () => {
    const k = kit();
    await k.manager.apply(fs());
    const b = k.built[0]!;
    b.quorate = true;
    b.leader = true;
    await k.clock.advance(1000);
    k.changes.splice(0);
    await k.manager.apply(fs({ nodeName: 'renamed' }));
    expect(k.changes).toEqual([
      { what: 'quorum', now: false, leader: null, reload: true },
      { what: 'leader', now: false, leader: null, reload: true },
    ]);
    const rebuilt = k.built.at(-1)!;
    rebuilt.quorate = true;
    rebuilt.leader = true;
    await k.clock.advance(1000);
    k.changes.splice(0);
    await k.manager.stop();
    expect(k.changes).toEqual([]);
  });

  it('clusterOwner (spec 05 §12.2): only under spread; null without quorum; no backend: Leader none, PreferLeader here', async () => {
    const k = kit();
    stops.push(k.manager);
    const spread: ClusterSection = {
      backend: 'gossip',
      nodeName: 'node-a',
      electLeader: true,
      distribution: 'spread',
    };
    k.failStart.value = 'bind failed';
    await k.manager.apply(spread);
    expect(k.manager.distribution()).toBe('spread');
    expect(k.manager.ownerOf('j', 'Leader')).toBeNull();
    expect(k.manager.ownerOf('j', 'PreferLeader')).toBe('node-a');
    k.failStart.value = null;
    await k.manager.apply({ ...spread, interval: 5 });
    const b = k.built[1]!;
    b.owners = { Leader: null, PreferLeader: 'node-b' };
    expect(k.manager.ownerOf('j', 'Leader')).toBeNull();
    expect(k.manager.ownerOf('j', 'PreferLeader')).toBe('node-b');
    await k.manager.apply({ ...spread, distribution: 'single-leader' });
    expect(k.manager.ownerOf('j', 'Leader')).toBeUndefined();
  });

  it('election is in force on lease backends always, on gossip only with electLeader', () => {
    expect(electionConfigured(null)).toBe(false);
    expect(electionConfigured(fs({ electLeader: false }))).toBe(true);
    expect(electionConfigured({ backend: 'gossip' })).toBe(false);
    expect(electionConfigured({ electLeader: true })).toBe(true);
  });
});
