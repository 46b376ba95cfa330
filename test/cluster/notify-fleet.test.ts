// `notify: leader_change` and `quorum_loss` (spec 09 §5.2, §5.4) on a real fleet: four gossip
// daemons on loopback electing one leader over one shared store, all posting to one real webhook
// listener. The fleet sends each event once, not once per node: only the node whose leadership
// flips reports it, and when two nodes leave quorum together the first to claim the incident in
// the shared store reports it while the other only logs it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpHit, httpSink } from '../helpers/sinks.ts';
import { type FleetNode, jobsYaml, useFleet, waitUntil, waitViews } from './harness.ts';

let sink: Awaited<ReturnType<typeof httpSink>>;
// The port must be known before the fleet writes its configs: bind the listener at import time.
const sinkReady = httpSink().then((s) => {
  sink = s;
  return s;
});
const port = (await sinkReady).port;

const NOTIFY = `notify:
  events:
    - leader_change
    - quorum_loss
  report:
    webhook:
      url:
        value: http://127.0.0.1:${port}/events
`;

const handle = useFleet({
  nodes: 4,
  backend: 'gossip',
  distribution: 'single-leader',
  jobsYaml: jobsYaml([{ name: 'tick', policy: 'Leader', schedule: '0 * * * * * *' }], NOTIFY),
});

afterAll(async () => {
  await sink?.close();
});

const texts = (): string[] => sink.hits.map((h: HttpHit) => (JSON.parse(h.body) as { text: string }).text);
const matching = (re: RegExp) => texts().filter((t) => re.test(t));

/** Waits for one leader seen by every node in `nodes`, all quorate, other than `not`. */
async function leaderOf(nodes: FleetNode[], not?: string): Promise<string> {
  let leader = '';
  await waitViews(
    handle.fleet,
    'one leader, every node quorate',
    (views) => {
      const all = Object.values(views);
      const leaders = new Set(all.map((v) => v.leader));
      leader = all[0]?.leader ?? '';
      return all.every((v) => v.quorate) && leaders.size === 1 && leader !== '' && leader !== not;
    },
    30_000,
    nodes,
  );
  return leader;
}

/** How often each node's own log says its leadership flipped one way. */
function flips(direction: 'acquired' | 'lost'): Record<string, number> {
  const line =
    direction === 'acquired'
      ? 'cluster: this node is now the leader'
      : 'cluster: this node is no longer the leader';
  const out: Record<string, number> = {};
  for (const n of handle.fleet.nodes) {
    const count = n.log().split(line).length - 1;
    if (count > 0) out[n.id] = count;
  }
  return out;
}

/** The leader_change POSTs per node named, one way. */
function posted(direction: 'acquired' | 'lost'): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of matching(new RegExp(`^cronstable leader_change: node (\\S+) ${direction} `))) {
    const node = /node (\S+) /.exec(t)![1]!;
    out[node] = (out[node] ?? 0) + 1;
  }
  return out;
}

/** Every flip a node logged was POSTed exactly once, by that node alone. */
async function expectOnePostPerFlip(): Promise<void> {
  for (const direction of ['acquired', 'lost'] as const) {
    const same = (a: Record<string, number>, b: Record<string, number>) =>
      JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
    await waitUntil(() => same(posted(direction), flips(direction)), {
      timeoutMs: 10_000,
      label: `one ${direction} POST per ${direction} flip`,
    }).catch(() => undefined);
    expect(posted(direction), direction).toEqual(flips(direction));
  }
}

describe('notify on a fleet', () => {
  beforeAll(async () => {
    await handle.fleet.waitConverged(30_000);
  }, 40_000);

  it('reports leadership once per flip, from the flipping node only', async () => {
    const leader = await leaderOf(handle.fleet.running());
    await waitUntil(() => matching(new RegExp(`node ${leader} acquired`)).length >= 1, {
      timeoutMs: 10_000,
      label: 'the acquired POST',
    });
    // Start-up may elect a node that loses the role when a lower-named peer joins: each flip
    // is a POST of its own, never one per node of the fleet.
    await expectOnePostPerFlip();
    expect(matching(new RegExp(`node ${leader} acquired`))[0]).toBe(
      `cronstable leader_change: node ${leader} acquired scheduled-job leadership\nThis node is now the scheduled-job leader.\n`,
    );
    // However many flips start-up took (on a loaded machine every node may lead for a moment, and a
    // node learns of a lower-named peer a round later), once the fleet has settled the POSTs add up
    // to one leader: it acquired once more than it lost, every other node lost as often as it acquired.
    const holding = () => {
      const acquired = posted('acquired');
      const lost = posted('lost');
      return handle.fleet.nodes.map((n) => n.id).filter((id) => (acquired[id] ?? 0) !== (lost[id] ?? 0));
    };
    await waitUntil(() => JSON.stringify(holding()) === JSON.stringify([leader]), {
      timeoutMs: 15_000,
      label: 'the POSTs to add up to one leader',
    }).catch(() => undefined);
    expect(holding()).toEqual([leader]);
    await expectOnePostPerFlip();
  });

  it('after the leader crashes, reports the new leader once', async () => {
    const first = await leaderOf(handle.fleet.running());
    await handle.node(first).kill();
    const survivors = handle.fleet.running();
    const second = await leaderOf(survivors, first);
    await waitUntil(() => matching(new RegExp(`node ${second} acquired`)).length >= 1, {
      timeoutMs: 20_000,
      label: 'the acquired POST of the new leader',
    });
    // The crashed leader says nothing; the new one says it once.
    await expectOnePostPerFlip();
  }, 40_000);

  it('when two nodes leave quorum together, the fleet reports it once', async () => {
    const leader = await leaderOf(handle.fleet.running());
    const follower = handle.fleet.running().find((n) => n.id !== leader)!;
    const left = handle.fleet.running().filter((n) => n !== follower);
    expect(left).toHaveLength(2);
    const logFrom = new Map(left.map((n) => [n.id, n.log().length]));
    const since = (n: FleetNode) => n.log().slice(logFrom.get(n.id));
    const postsFrom = matching(/^cronstable quorum_loss: /).length;
    await follower.kill();
    // Both survivors see the loss and decide: one reports, the other finds the incident claimed.
    await waitUntil(
      () => left.every((n) => /Reporting quorum_loss event|Not reporting quorum_loss event/.test(since(n))),
      { timeoutMs: 30_000, label: 'both survivors deciding on the quorum loss' },
    );
    const reporters = left.filter((n) => since(n).includes('Reporting quorum_loss event'));
    expect(reporters).toHaveLength(1);
    await waitUntil(() => matching(/^cronstable quorum_loss: /).length > postsFrom, {
      timeoutMs: 10_000,
      label: 'the quorum_loss POST',
    });
    expect(matching(/^cronstable quorum_loss: /).slice(postsFrom)).toEqual([
      `cronstable quorum_loss: node ${reporters[0]!.id} left quorum\nNo majority reachable; Leader jobs cannot run on this node until quorum is restored.\n`,
    ]);
    await waitUntil(() => matching(new RegExp(`node ${leader} lost`)).length >= 1, {
      timeoutMs: 10_000,
      label: 'the leader losing leadership',
    });
    // Leadership is a fact about one node: only the leader that lost it says so.
    expect(matching(new RegExp(`node ${leader} lost`)).at(-1)).toBe(
      `cronstable leader_change: node ${leader} lost scheduled-job leadership\nThis node is no longer the scheduled-job leader.\n`,
    );
    await expectOnePostPerFlip();
  }, 60_000);
});
