// The fleet view (spec 08 §4.12): the jobs × nodes matrix from `/fleet`, the totals, `f` failing only, `r`
// refresh, a re-fetch after every poll while open, the owner's cell, and the message without a mesh.
import { describe, expect, it } from 'vitest';
import { UNICODE } from '../../src/tui/text/glyphs.ts';
import { fleetCellText, nodeColumn } from '../../src/tui/views/fleet/fleet.ts';
import { FIXTURE_NOW, type Harness, KEY } from '../helpers/tui-fixture.ts';
import { fleet, panelSuite, waitPanel } from '../helpers/tui-panel-fixtures.ts';

const { daemon, mount } = panelSuite();

let h: Harness;

const fleetGets = () => daemon.requests.filter((r) => r.url === '/fleet').length;

describe('fleet view', () => {
  it('needs a mesh: the message when /fleet is disabled', async () => {
    daemon.routes['/fleet'] = { enabled: false, nodes: [] };
    h = mount();
    await h.press('F');
    await waitPanel(h, (t) => !t.includes('loading /fleet'));
    expect(h.text()).toContain('fleet view needs a cluster with a node-to-node channel');
  });

  it('draws the totals, one column per node (this node starred) and every cell kind', async () => {
    daemon.routes['/fleet'] = fleet();
    h = mount({ rows: 30 });
    await h.press('F');
    await waitPanel(h, (t) => !t.includes('loading /fleet'));
    const t = h.text();
    expect(t).toContain('3 nodes · 3 jobs · 1 running · 1 failing');
    expect(t).toMatch(/job\s+\*node-a\s+node-b\s+node-c/);
    expect(t).toMatch(/this node · live/);
    const row = (name: string) => t.split('\n').find((l) => l.includes(name) && !l.includes('fires'))!;
    // ok with its age on two nodes, never reported by node-c (`·`)
    expect(row('orders-ingest')).toMatch(/● ok 2m\s+● ok 1m\s+·/);
    expect(row('daily-reconcile')).toMatch(/✕ fail 5m\s+● ok 4m\s+·/);
    // running on node-a, absent on node-b
    expect(row('audit-ship')).toMatch(/▶ run\s+—\s+·/);
  });

  it('f shows only jobs failing somewhere, f again all; r and every poll fetch /fleet again', async () => {
    daemon.routes['/fleet'] = fleet();
    h = mount({ rows: 30 });
    await h.press('F');
    await waitPanel(h, (t) => !t.includes('loading /fleet'));
    await h.press('f');
    let t = h.text();
    expect(t).toContain('FAILING ONLY (f)');
    expect(t).toContain('daily-reconcile');
    expect(t).not.toContain('orders-ingest');
    await h.press('f');
    expect(h.text()).toContain('orders-ingest');
    const before = fleetGets();
    await h.press('r');
    await waitPanel(h, () => fleetGets() === before + 1);
    await h.ctl.poll();
    await waitPanel(h, () => fleetGets() === before + 2);
    await h.press(KEY.esc);
    await h.ctl.poll();
    await h.settle(100);
    // closed: polls no longer fetch it
    expect(fleetGets()).toBe(before + 2);
    t = h.text();
    expect(t).not.toContain('╴fleet╶');
  });

  it("frames the owner's cell (◆) from /jobs clusterOwner", async () => {
    daemon.routes['/fleet'] = fleet();
    const jobs = daemon.jobs;
    daemon.jobs = [...jobs, { ...jobs[0]!, name: 'orders-ingest', clusterOwner: 'node-b' }];
    try {
      h = mount({ rows: 30 });
      await h.press('F');
      await waitPanel(h, (t) => !t.includes('loading /fleet'));
      const line = h
        .text()
        .split('\n')
        .find((l) => l.includes('orders-ingest'))!;
      expect(line).toMatch(/● ok 2m\s+● ok 1m ◆/);
    } finally {
      daemon.jobs = jobs;
    }
  });

  it('cell and column rules', () => {
    const n = fleet().nodes[0]!;
    expect(fleetCellText(n, 'nope', FIXTURE_NOW, UNICODE)).toEqual(['—', 'dim']);
    expect(fleetCellText({ ...n, jobs: null }, 'x', FIXTURE_NOW, UNICODE)).toEqual(['·', 'dim']);
    expect(
      fleetCellText(
        { ...n, jobs: { x: { running: false, enabled: false, scheduled_in: null, last: null } } },
        'x',
        FIXTURE_NOW,
        UNICODE,
      ),
    ).toEqual(['◌ off', 'off']);
    expect(nodeColumn(92, 3)).toBe(16);
    expect(nodeColumn(92, 9)).toBe(10);
    expect(nodeColumn(92, 6)).toBe(11);
  });
});
