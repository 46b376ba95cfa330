// The node panel (spec 08 §4.12): every `/node` reading, the overload line, CPU and memory charts of
// `/node/history` with their stats, the sampler-off message, and a refresh at the sampler's interval (Q18).
import { describe, expect, it } from 'vitest';
import { blockChart } from '../../src/tui/text/chart.ts';
import { UNICODE } from '../../src/tui/text/glyphs.ts';
import { resourceValue } from '../../src/tui/views/node/node.ts';
import { type Harness, KEY } from '../helpers/tui-fixture.ts';
import { nodeHistory, panelSuite, waitPanel } from '../helpers/tui-panel-fixtures.ts';

const { daemon, mount } = panelSuite();

let h: Harness;

const historyGets = () => daemon.requests.filter((r) => r.url === '/node/history').length;

describe('node panel', () => {
  it('lists the readings and draws 3-row cpu and mem charts with their stats', async () => {
    daemon.routes['/node'] = {
      node_name: 'n1',
      resources: {
        cpu_percent: 29,
        cpu_count: 2,
        mem_percent: 2.3,
        mem_used_bytes: 3 * 1024 ** 3,
        mem_total_bytes: 16 * 1024 ** 3,
        proc_rss_bytes: 90 * 1024 ** 2,
        proc_cpu_percent: 1.5,
      },
      overload: {
        overloaded: false,
        missed_fires: 0,
        last_missed_at: null,
        waiting_launches: 0,
        launch_lag_seconds: 0.002,
      },
    };
    daemon.routes['/node/history'] = nodeHistory();
    h = mount({ rows: 36 });
    await h.ctl.poll();
    await h.press('N');
    await waitPanel(h, (t) => !t.includes('loading /node/history'));
    const t = h.text();
    expect(t).toContain('node: n1');
    expect(t).toMatch(/cpu percent\s+29%/);
    expect(t).toMatch(/mem percent\s+2\.3%/);
    expect(t).toMatch(/mem total bytes\s+16 GiB/);
    expect(t).toMatch(/proc rss bytes\s+90 MiB/);
    expect(t).toMatch(/overload\s+no\s/);
    expect(t).toContain('0 missed fires · 0 waiting · launch lag 0.002s');
    expect(t).toMatch(/cpu now 73% · mean 47% · max 98%/);
    expect(t).toContain('mem now 34% · max 34%');
    expect(t).toContain('40 samples · every 5 s · since 3m ago');
    const lines = t.split('\n');
    const cpuTop = lines.findIndex((l) => /│\s+cpu\s*[ ▁-█]+100%/.test(l));
    expect(cpuTop).toBeGreaterThan(0);
    expect(lines[cpuTop + 2]).toMatch(/0%/);
  });

  it('says so when sampling is off and when the sampler is disabled', async () => {
    daemon.routes['/node'] = { node_name: 'n1', resources: null };
    daemon.routes['/node/history'] = { node_name: 'n1', enabled: false, interval: null, points: [] };
    h = mount();
    await h.ctl.poll();
    await h.press('N');
    await waitPanel(h, (t) => !t.includes('loading /node/history'));
    expect(h.text()).toContain('resource sampling unavailable');
    expect(h.text()).toContain('the node sampler is off (web.nodeHistory: false)');
  });

  it('refreshes /node/history at the sampler interval while open, not after Esc', async () => {
    daemon.routes['/node/history'] = nodeHistory(3);
    h = mount();
    await h.press('N');
    await waitPanel(h, (t) => !t.includes('loading /node/history'));
    const first = historyGets();
    h.store.set({ mono: h.store.get().mono + 2000 });
    await h.settle(50);
    expect(historyGets()).toBe(first);
    h.store.set({ mono: h.store.get().mono + 3000 });
    await waitPanel(h, () => historyGets() === first + 1);
    await h.press(KEY.esc);
    h.store.set({ mono: h.store.get().mono + 10_000 });
    await h.settle(100);
    expect(historyGets()).toBe(first + 1);
  });

  it('formats values and draws eighth-step columns', () => {
    expect(resourceValue('cpu_percent', 6.24)).toBe('6.2%');
    expect(resourceValue('rss_peak', 2048)).toBe('2.0 KiB');
    expect(resourceValue('cpu_count', 4)).toBe('4');
    expect(blockChart([0, 50, 100, 12.5], 100, 2, UNICODE)).toEqual(['  █ ', ' ██▂']);
  });
});
