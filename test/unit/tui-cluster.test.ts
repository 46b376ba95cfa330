// The cluster panel (spec 08 §4.12): single node, a 3-node gossip view with an unreachable peer, a lost quorum,
// a lease backend; its key, palette entry, scrolling (Q17) and Esc. ink-testing-library around a real
// Controller and a loopback fixture daemon serving `/cluster`.
import { describe, expect, it } from 'vitest';
import { type Harness, KEY } from '../helpers/tui-fixture.ts';
import { etcdCluster, gossipCluster, panelSuite } from '../helpers/tui-panel-fixtures.ts';

const { daemon, mount } = panelSuite();

let h: Harness;

async function open(rows = 40): Promise<Harness> {
  h = mount({ rows });
  await h.ctl.poll();
  await h.press('C');
  return h;
}

describe('cluster panel', () => {
  it('says single node without a cluster; C toggles it, Esc closes it', async () => {
    await open();
    expect(h.text()).toContain('╴cluster╶');
    expect(h.text()).toContain('no cluster configured (single node)');
    await h.press('C');
    expect(h.text()).not.toContain('╴cluster╶');
    await h.press('C');
    expect(h.text()).toContain('╴cluster╶');
    await h.press(KEY.esc);
    expect(h.text()).not.toContain('╴cluster╶');
    expect(h.store.get().stack).toEqual([]);
  });

  it('shows the shared summary, this node, every peer with its mark, load, owns and last error', async () => {
    daemon.routes['/cluster'] = gossipCluster();
    await open();
    const t = h.text();
    // the same summary line the web panel prints (shared cluster.ts)
    expect(t).toContain('node-a · 1/2 agreed · quorum ok (need 2) · spread (per-job owner) · owns 0');
    expect(t).toContain('backend gossip · 2 of 3 nodes in agreement · size 3 · quorum 2 · spread');
    expect(t).toContain('this node: 29% cpu / 2% mem');
    expect(t).toMatch(/✓ 127\.0\.0\.12:7946\s+node-b\s+agreed\s+12% \/ 40%/);
    expect(t).toMatch(/✕ 127\.0\.0\.13:7946\s+node-c\s+unreachable/);
    expect(t).toContain('seen 1m ago · last error: connect ECONNREFUSED 127.0.0.13:7946');
    expect(t).not.toContain('☢');
  });

  it('raises the cluster alert when the quorum is lost', async () => {
    daemon.routes['/cluster'] = gossipCluster({ quorate: false });
    await open();
    expect(h.text()).toContain('☢ no quorum — Leader jobs paused');
    expect(h.text()).toContain('2 of 3 nodes agree, 2 needed');
  });

  it('shows the lease block of a lease backend: holder in the ok colour, expiry as a countdown', async () => {
    daemon.routes['/cluster'] = etcdCluster();
    await open();
    const t = h.text();
    expect(t).toContain('node-a · etcd lease · leader');
    expect(t).toMatch(/held by\s+node-a/);
    expect(t).toMatch(/expires\s+in 10s · 2026-07-05T09:00:10\.000Z/);
    expect(t).toMatch(/election\s+cronstable-leader/);
    expect(t).toMatch(/our identity\s+node-a/);
    const frame = h.frame();
    const held = frame.split('\n').find((l) => l.includes('held by'))!;
    // carolina ok = 37d495 = 55;212;149
    expect(held).toMatch(/38;2;55;212;149;[0-9;]*m(?:\u001b\[[0-9;]*m)*node-a/);
  });

  it('scrolls with j/k/End/Home when the body is taller than the screen (Q17)', async () => {
    const peers = Array.from({ length: 30 }, (_, i) => ({
      host: `10.0.0.${i}:7946`,
      status: 'agreed' as const,
      node_name: `peer-${String(i).padStart(2, '0')}`,
      job_set_id: null,
      last_seen: null,
      last_error: null,
      mismatch_streak: 0,
      node_stats: null,
    }));
    daemon.routes['/cluster'] = gossipCluster({ peers });
    await open(24);
    expect(h.text()).toContain('peer-00');
    expect(h.text()).not.toContain('peer-29');
    expect(h.text()).toMatch(/1-\d+\/\d+/);
    await h.press('j', 'j', 'j', 'j');
    expect(h.text()).not.toContain('this node:');
    expect(h.text()).toMatch(/5-\d+\/35/);
    await h.press('\u001b[F');
    expect(h.text()).toContain('peer-29');
    await h.press('\u001b[H');
    expect(h.text()).toContain('this node:');
  });

  it('opens from the palette entry "Toggle cluster panel"', async () => {
    h = mount();
    await h.press(KEY.ctrlK, ...'cluster panel', KEY.enter);
    expect(h.text()).toContain('╴cluster╶');
  });
});
