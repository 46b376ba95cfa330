// The terminal dashboard's other panels end to end (spec 08 §4.12): the built CLI in a real pseudo-terminal
// against real daemons on loopback, read through a headless xterm. Each panel is opened by its key and the
// screen is checked for what a person sees. A single daemon (the §7 fixture, node sampler every second) serves
// the node, heatmap, radar, pressure, week, sandbox and single-node cluster panels; three daemons in a gossip
// cluster over mutual TLS on 127.0.0.21-23 serve the cluster panel's peers and the fleet view.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateClusterCerts } from '../../scripts/fleet/certs.ts';
import { freePort } from '../../scripts/fleet/ports.ts';
import { DAEMON, type E2eDaemon, startE2eDaemon, tearDownE2e } from '../helpers/e2e-daemon.ts';
import { gossipNodeYaml } from '../helpers/gossip-node-yaml.ts';
import { TuiPty } from '../helpers/tui-pty.ts';
import { until } from '../helpers/until.ts';

const CONFIG = (port: number): string => `jobs:
  - name: heartbeat
    command: echo beat
    schedule: "* * * * * * *"
  - name: nightly-backup
    schedule: "0 3 * * *"
    command: |
      echo "backing up"
      exit 69
  - name: long-sleep
    schedule: "*/30 * * * *"
    command: sleep 3600
    concurrencyPolicy: Forbid
  - name: report-daily
    schedule: "0 6 * * mon-fri"
    command: echo report
  - name: colour-probe
    schedule: "*/5 * * * *"
    command: echo probe
  - name: legacy-sync
    schedule: "15 2 * * *"
    command: echo never
    enabled: false
web:
  nodeHistory:
    interval: 1
  listen:
    - http://127.0.0.1:${port}
`;

let dir = '';
let home = '';
let base = '';
let daemon: E2eDaemon | null = null;
const ttys: TuiPty[] = [];

function tui(url: string, opts: { cols?: number; rows?: number } = {}): TuiPty {
  const t = new TuiPty(['--url', url, '--no-boot', '--poll', '1'], {
    ...opts,
    cwd: home,
    env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), LANG: 'C.UTF-8' },
  });
  ttys.push(t);
  return t;
}

/** Waits for `what`, then until two reads 150 ms apart agree (a frame can arrive in several chunks). */
async function settled(
  t: TuiPty,
  what: string | RegExp | ((s: string) => boolean),
  ms = 8000,
): Promise<string> {
  let screen = await t.waitFor(what, ms);
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 150));
    const again = await t.screen();
    if (again === screen) return screen;
    screen = again;
  }
  return screen;
}

/** The rows of the open panel (between its borders), trailing blanks cut. */
async function panel(t: TuiPty): Promise<string[]> {
  return (await t.lines()).filter((l) => l.includes('│')).map((l) => l.trimEnd());
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

beforeAll(async () => {
  if (!existsSync(DAEMON)) throw new Error(`${DAEMON} is missing: run npm run build`);
  dir = mkdtempSync(join(tmpdir(), 'tui-panels-e2e-'));
  home = mkdtempSync(join(tmpdir(), 'tui-panels-home-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  writeFileSync(join(dir, 'cronstable.yaml'), CONFIG(port));
  daemon = await startE2eDaemon(dir, { base });
  for (const j of ['nightly-backup', 'report-daily', 'colour-probe'])
    await fetch(`${base}/jobs/${j}/start`, { method: 'POST' });
  await until('the started jobs to finish', 15_000, async () => {
    const jobs = await getJson<Array<{ name: string; last_run: unknown }>>(`${base}/jobs`);
    const by = new Map(jobs.map((j) => [j.name, j]));
    return ['nightly-backup', 'report-daily', 'colour-probe'].every((n) => by.get(n)?.last_run) ? true : null;
  });
}, 40_000);

afterEach(() => {
  for (const t of ttys.splice(0)) t.kill('SIGKILL');
});

afterAll(async () => {
  await tearDownE2e(null, daemon, dir, home);
});

describe('cronstable tui panels on one daemon', () => {
  it('C: the cluster panel says single node; C again closes it', async () => {
    const t = tui(base);
    await t.waitFor('● live');
    t.write('C');
    const screen = await settled(t, 'no cluster configured (single node)');
    expect(screen).toMatch(/╴cluster╶/);
    t.write('C');
    await t.waitFor((s) => !s.includes('╴cluster╶'));
  });

  it("N: the node panel shows this node's readings and fills its charts from /node/history", async () => {
    const t = tui(base);
    await t.waitFor('● live');
    t.write('N');
    await t.waitFor('╴node resources╶');
    const screen = await settled(t, /\d+ samples · every 1 s/);
    const node = await getJson<{ node_name: string; resources: Record<string, number> }>(`${base}/node`);
    expect(screen).toContain(`node: ${node.node_name}`);
    expect(screen).toMatch(/cpu count\s+\d+/);
    expect(screen).toMatch(/mem total bytes\s+[\d.]+ GiB/);
    expect(screen).toMatch(/cpu now [\d.]+% · mean [\d.]+% · max [\d.]+%/);
    // the sampler ticks every second and the panel follows it (Q18)
    const count = (s: string) => Number(/(\d+) samples/.exec(s)![1]);
    const first = count(screen);
    await t.waitFor((s) => /(\d+) samples/.test(s) && count(s) > first, 6000);
    t.write('\u001b');
    await t.waitFor((s) => !s.includes('node resources'));
  });

  it("H: the heatmap draws each job's runs from /jobs/{name}/runs, the failure in its own row", async () => {
    const t = tui(base);
    await t.waitFor('● live');
    t.write('H');
    await t.waitFor('╴activity heatmap╶');
    const screen = await settled(
      t,
      (s) => /heartbeat\s+[░▒▓█]+\s+\d+/.test(s) && !s.includes('loading'),
      10_000,
    );
    expect(screen).toMatch(/\d+ runs · 6 jobs · last 24h in 24 buckets of 1 h · UTC/);
    const rows = await panel(t);
    expect(rows.find((r) => r.includes('nightly-backup'))).toMatch(/[░▒▓█]{2}\s+1\b/);
    expect(rows.find((r) => r.includes('long-sleep'))).toMatch(/long-sleep\s+0\b/);
    t.write('w');
    await t.waitFor('last 7d in 24 buckets of 7 h');
  });

  it('R: the radar counts down to the soonest fires of the enabled jobs', async () => {
    const t = tui(base);
    await t.waitFor('● live');
    t.write('R');
    const screen = await settled(t, /now\s+\+2m/);
    expect(screen).toMatch(/5 upcoming · 5 scheduled jobs · \d+ fires in the next 10 min · UTC/);
    expect(screen).toMatch(/1 ◆ heartbeat\s+\* \* \* \* \* \* \*\s+\d\d:\d\d:\d\d\s+in (?:<1s|1s)/);
    expect(screen).toMatch(/now\s+\+2m\s+\+4m/);
    const rows = await panel(t);
    expect(rows.join('\n')).not.toContain('legacy-sync');
    expect(rows.some((r) => /◆[─◆]+/.test(r))).toBe(true);
  });

  it("P: the pressure panel shows the daemon's own analysis, the suggestions and the grid", async () => {
    const t = tui(base, { rows: 60 });
    await t.waitFor('● live');
    t.write('P');
    const screen = await settled(t, 'suggest  ');
    const p = await getJson<{ jobs: number; busiest_minute: { minute: number; jobs: number } }>(
      `${base}/schedule/pressure`,
    );
    const hourly = await getJson<{ expression: string }>(`${base}/schedule/suggest?period=hourly`);
    expect(p.jobs).toBe(5);
    expect(screen).toMatch(
      /next 24h: \d+ fires from 5 schedules · busiest :\d\d \(\d+ jobs\) · \d+\/60 minutes empty/,
    );
    expect(screen).toContain(
      `busiest :${String(p.busiest_minute.minute).padStart(2, '0')} (${p.busiest_minute.jobs} jobs)`,
    );
    expect(screen).toContain(`suggest  ${hourly.expression} (hourly`);
    expect(screen).toMatch(/:00\s+:10\s+:20\s+:30\s+:40\s+:50/);
    // every hour has the per-second heartbeat: no hour row is all empty
    expect(screen).toMatch(/│\s+03\s+[░▒▓█]/);
    t.write('e');
    await t.waitFor(`◴ ${hourly.expression}▌`);
  });

  it('v: the week calendar charts the next 7 UTC days with the frequent jobs as background hum', async () => {
    const t = tui(base, { rows: 50 });
    await t.waitFor('● live');
    t.write('v');
    const screen = await settled(t, 'upcoming fires (UTC)');
    expect(screen).toMatch(
      /next 7 days: \d+ fires from 5 schedules · 3 frequent jobs summarized below · UTC/,
    );
    expect(screen).toMatch(/│\s+today\s+[·░▒▓█ ]+\s+\d+/);
    expect(screen).toContain('upcoming fires (UTC)');
    expect(screen).toMatch(/nightly-backup/);
    t.write('j'.repeat(30));
    await t.waitFor(/heartbeat\s+every second/);
    t.write('\u001b[C');
    await t.waitFor(/\d{4}-\d\d-\d\d – \d{4}-\d\d-\d\d: \d+ fires/);
  });

  it('E: the sandbox explains what is typed, q included, and Esc closes it', async () => {
    const t = tui(base);
    await t.waitFor('● live');
    t.write('E');
    await t.waitFor('╴cron sandbox╶');
    t.write('\u0015');
    await t.waitFor('◴ ▌');
    t.write('30 2 * * 1');
    let screen = await settled(t, '◴ 30 2 * * 1▌');
    expect(screen).toMatch(/At 02:30.*Monday/i);
    expect(screen).toMatch(/next fires \(UTC\):/);
    expect(screen).toMatch(/Mon \d{4}-\d\d-\d\d 02:30:00/);
    t.write(' q');
    screen = await settled(t, '◴ 30 2 * * 1 q▌');
    expect(screen).toContain('the engine rejects it');
    t.write('\u001b');
    await t.waitFor((s) => !s.includes('cron sandbox'));
  });

  it('a panel follows a resize (T24 for panels): every border stays in one column at 80×24', async () => {
    const t = tui(base);
    await t.waitFor('● live');
    t.write('R');
    await t.waitFor('╴next-fire radar╶');
    t.resize(80, 24);
    await t.waitFor((s) => s.split('\n').length === 24 && s.includes('╴next-fire radar╶'));
    await new Promise((r) => setTimeout(r, 300));
    const rows = (await t.lines()).filter((l) => l.includes('│ '));
    expect(rows.length).toBeGreaterThan(5);
    const right = new Set(rows.map((l) => l.trimEnd().length));
    expect(right.size).toBe(1);
    expect([...right][0]).toBeLessThanOrEqual(80);
  });
});

// ---- a 3-node gossip cluster ---------------------------------------------------------------------------------

const NODES = ['node-a', 'node-b', 'node-c'] as const;
type NodeName = (typeof NODES)[number];
const ADDR: Record<NodeName, string> = {
  'node-a': '127.0.0.21',
  'node-b': '127.0.0.22',
  'node-c': '127.0.0.23',
};

interface Node {
  name: NodeName;
  web: number;
  peer: number;
  proc: ChildProcess | null;
  logs: string;
}

function clusterYaml(me: Node, all: Node[], certs: string, state: string): string {
  const node = gossipNodeYaml({
    name: me.name,
    listen: `${ADDR[me.name]}:${me.peer}`,
    webPort: me.web,
    peers: all.filter((n) => n.name !== me.name).map((n) => `${ADDR[n.name]}:${n.peer}`),
    certDir: certs,
    stateDir: state,
  });
  return `jobs:
  - name: orders-ingest
    command: "true"
    schedule: "0 0 1 1 *"
    clusterPolicy: Leader
  - name: every-node-ping
    command: "true"
    schedule: "0 0 1 1 *"
    clusterPolicy: EveryNode
  - name: disk-probe
    command: "false"
    schedule: "0 0 1 1 *"
    clusterPolicy: EveryNode
${node}`;
}

describe('cronstable tui panels on a 3-node gossip cluster', () => {
  let cdir = '';
  const nodes: Node[] = [];
  const logs = () => nodes.map((n) => `--- ${n.name}\n${n.logs}`).join('\n');
  const urlA = () => `http://127.0.0.1:${nodes[0]!.web}`;

  beforeAll(async () => {
    cdir = mkdtempSync(join(tmpdir(), 'tui-panels-cluster-'));
    const certs = join(cdir, 'certs');
    generateClusterCerts(
      certs,
      NODES.map((name) => ({ name, sans: [`IP:${ADDR[name]}`] })),
    );
    const state = join(cdir, 'state');
    mkdirSync(state);
    for (const name of NODES)
      nodes.push({ name, web: await freePort(), peer: await freePort(ADDR[name]), proc: null, logs: '' });
    for (const n of nodes) {
      const conf = join(cdir, n.name);
      mkdirSync(conf);
      writeFileSync(join(conf, 'cronstable.yaml'), clusterYaml(n, nodes, certs, state));
      const proc = spawn(process.execPath, [DAEMON, '-c', conf], {
        cwd: conf,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      proc.stdout!.on('data', (c: Buffer) => {
        n.logs += c.toString();
      });
      proc.stderr!.on('data', (c: Buffer) => {
        n.logs += c.toString();
      });
      n.proc = proc;
    }
    for (const n of nodes)
      await until(`${n.name} to converge`, 60_000, async () => {
        if (n.proc!.exitCode !== null) throw new Error(`${n.name} exited: ${n.logs}`);
        const c = await getJson<{ enabled: boolean; quorate: boolean; peers: Array<{ status: string }> }>(
          `http://127.0.0.1:${n.web}/cluster`,
        );
        return c.enabled && c.quorate && c.peers.every((p) => p.status === 'agreed') ? c : null;
      }).catch((e: Error) => {
        throw new Error(`${e.message}\n${logs()}`);
      });
    // run disk-probe (it fails) on node-b only: the fleet shows the failure in node-b's column alone
    await fetch(`http://127.0.0.1:${nodes[1]!.web}/jobs/disk-probe/start`, { method: 'POST' });
    await until('node-a to see disk-probe fail on node-b', 20_000, async () => {
      const f = await getJson<{
        nodes: Array<{ node_name: string; jobs: Record<string, { last: unknown }> | null }>;
      }>(`${urlA()}/fleet`);
      const last = (name: string) => f.nodes.find((x) => x.node_name === name)?.jobs?.['disk-probe']?.last;
      return last('node-b') ? true : null;
    });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(
      nodes.map(async (n) => {
        if (!n.proc || n.proc.exitCode !== null || n.proc.signalCode !== null) return;
        const exited = new Promise((r) => n.proc!.once('exit', r));
        n.proc.kill('SIGTERM');
        const timer = setTimeout(() => n.proc!.kill('SIGKILL'), 8000);
        await exited;
        clearTimeout(timer);
      }),
    );
    if (cdir) rmSync(cdir, { recursive: true, force: true });
  }, 30_000);

  it("C: node A's cluster panel shows the agreement, its role and both peers", async () => {
    const t = tui(urlA());
    await t.waitFor('● live');
    t.write('C');
    const screen = await settled(
      t,
      /node-a · 2\/2 agreed · quorum ok \(need 2\) · spread \(per-job owner\) · owns \d/,
      8000,
    );
    expect(screen).toContain('backend gossip · 3 of 3 nodes in agreement · size 3 · quorum 2 · spread');
    expect(screen).toMatch(/this node: \d+% cpu \/ \d+% mem/);
    expect(screen).toMatch(/✓ 127\.0\.0\.22:\d+\s+node-b\s+agreed/);
    expect(screen).toMatch(/✓ 127\.0\.0\.23:\d+\s+node-c\s+agreed/);
    expect(screen).not.toContain('☢');
  });

  it('F: the fleet view draws every node and the failure on node-b; f keeps only failing jobs', async () => {
    const t = tui(urlA(), { cols: 120, rows: 30 });
    await t.waitFor('● live');
    t.write('F');
    const screen = await settled(t, /3 nodes · 3 jobs · \d+ running · 1 failing/, 8000);
    expect(screen).toMatch(/job\s+\*node-a\s+node-b\s+node-c/);
    expect(screen).toMatch(/this node · live/);
    const row = (s: string, name: string) => s.split('\n').find((l) => l.includes(name) && l.includes('│'))!;
    expect(row(screen, 'disk-probe')).toMatch(/disk-probe\s+◔\s+✕ fail (?:just now|\S+)\s+◔/);
    expect(row(screen, 'every-node-ping')).toMatch(/◔\s+◔\s+◔/);
    t.write('f');
    // the header's tag can reach the terminal a frame before the filtered rows: read a screen at rest
    await settled(t, 'FAILING ONLY (f)');
    const rows = (await panel(t)).join('\n');
    expect(rows).toContain('disk-probe');
    expect(rows).not.toContain('every-node-ping');
    t.write('C');
    await t.waitFor('╴cluster╶');
  });

  it('C after two nodes stop: the panel marks them ✕ and raises the alert; the board shows CLUSTER ALERT', async () => {
    const t = tui(urlA());
    await t.waitFor('● live');
    t.write('C');
    await settled(t, /2\/2 agreed/);
    await Promise.all(
      nodes.slice(1).map(async (n) => {
        const exited = new Promise((r) => n.proc!.once('exit', r));
        n.proc!.kill('SIGTERM');
        await exited;
      }),
    );
    const screen = await settled(t, (s) => s.includes('☢ no quorum — Leader jobs paused'), 20_000);
    expect(screen).toMatch(/node-a · 0\/2 agreed · quorum lost \(need 2\)/);
    expect(screen).toMatch(/✕ 127\.0\.0\.22:\d+\s+node-b\s+unreachable/);
    expect(screen).toMatch(/✕ 127\.0\.0\.23:\d+\s+node-c\s+unreachable/);
    expect(screen).toContain('1 of 3 nodes agree, 2 needed');
    t.write('\u001b');
    const board = await settled(t, (s) => !s.includes('╴cluster╶'));
    expect(board).toMatch(/☢ CLUSTER ALERT — NO QUORUM — LEADER JOBS PAUSED — this node: node-a/);
  });
});
