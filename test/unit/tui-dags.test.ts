// The DAGs panel and DAG drawer (spec 08 §4.11): list, runs, graph, tasks with approve / reject on waiting
// gates only (Q16), XCom, a task's log, trigger and backfill, with `Tab` switching tabs. ink-testing-library
// around a real Controller and a loopback fixture daemon that serves one DAG.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDag, ApiDagRun, ApiTaskEntry } from '../../src/dashboard/dag.ts';
import { parseBackfill } from '../../src/tui/views/dags/actions.ts';
import { dagEntry } from '../helpers/dag-entry.ts';
import { FixtureDaemon, type Harness, KEY, mountTui, whoamiFor } from '../helpers/tui-fixture.ts';

const DAG: ApiDag = {
  name: 'etl',
  enabled: true,
  scheduled: true,
  schedule: '0 4 * * *',
  retainRuns: 10,
  tasks: [
    { id: 'extract', type: 'task', dependsOn: [], triggerRule: 'all_success', retries: 0, mapped: false },
    {
      id: 'gate',
      type: 'approval',
      dependsOn: ['extract'],
      triggerRule: 'all_success',
      retries: 0,
      mapped: false,
    },
    { id: 'load', type: 'task', dependsOn: ['gate'], triggerRule: 'all_success', retries: 0, mapped: false },
  ],
  latestRun: {
    runKey: 'manual-1',
    state: 'running',
    kind: 'manual',
    createdAt: 1_783_240_000,
    updatedAt: 1_783_240_000,
  },
};

const entry = (id: string, state: ApiTaskEntry['state'], extra: object = {}) =>
  dagEntry(id, state, { attempt: 1, ...extra });

const RUN: ApiDagRun = {
  dag: 'etl',
  runKey: 'manual-1',
  runId: 'r1',
  logicalDate: null,
  state: 'running',
  kind: 'manual',
  createdAt: 1_783_240_000,
  updatedAt: 1_783_240_000,
  mapped: {},
  tasks: {
    extract: entry('extract', 'success'),
    gate: entry('gate', 'pending', { awaitingApproval: true }),
    load: entry('load', 'pending'),
  },
};

const daemon = new FixtureDaemon();
const posts: Array<{ url: string; body: string }> = [];

function dagRoutes(req: IncomingMessage, url: string, res: ServerResponse): boolean {
  const json = (v: unknown, status = 200) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
    return true;
  };
  if (req.method === 'POST' && url.startsWith('/dags/')) {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      posts.push({ url, body });
      if (url === '/dags/etl/trigger') json({ dag: 'etl', runKey: 'manual-2' });
      else if (url === '/dags/etl/backfill') json({ error: 'from must be an ISO date' }, 400);
      else json({ ok: true });
    });
    return true;
  }
  if (url === '/dags') return json([DAG]);
  if (url === '/dags/etl/runs?limit=50')
    return json({
      runs: [
        {
          runKey: 'manual-1',
          runId: 'r1',
          state: 'running',
          kind: 'manual',
          logicalDate: null,
          createdAt: 1_783_240_000,
          updatedAt: 1_783_240_000,
          taskStates: {},
        },
      ],
    });
  if (url === '/dags/etl/runs/manual-1') return json(RUN);
  if (url === '/dags/etl/runs/manual-1/xcom')
    return json({ entries: [{ taskkey: 'extract', key: 'rows', size: 2, at: 1, value: '42' }] });
  if (url === '/dags/etl/runs/manual-1/tasks/extract/logs') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`event: line\ndata: ${JSON.stringify({ stream: 'stdout', line: 'extracted 42 rows' })}\n\n`);
    res.end('event: end\ndata: {}\n\n');
    return true;
  }
  return false;
}

beforeAll(async () => {
  daemon.extra = dagRoutes;
  await daemon.start();
});
afterAll(() => daemon.stop());

let h: Harness;
afterEach(() => {
  h?.close();
  daemon.routes = {};
});

/** The drawer on etl; `whoami`, when given, is the token's `/whoami` answer, taken in first. */
async function openDrawer(whoami?: ReturnType<typeof whoamiFor>): Promise<Harness> {
  if (whoami) daemon.routes['/whoami'] = whoami;
  const t = mountTui(daemon, { cols: 100, rows: 30 });
  await Promise.all([t.ctl.loadDags(), t.ctl.loadAccess()]);
  await t.press(KEY.ctrlK, ...'dag: etl', KEY.enter);
  await t.shows('runs  graph  tasks  xcom  logs', 'manual-1');
  return t;
}

describe('DAGs panel', () => {
  it('lists each DAG with its task count, latest state and schedule; Enter opens the drawer', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 });
    await h.press(KEY.ctrlK, ...'toggle dags', KEY.enter);
    await h.shows(/⧉ etl\s+3 tasks\s+running\s+0 4 \* \* \*/);
    await h.press(KEY.enter);
    await h.shows('runs  graph  tasks  xcom  logs', 'manual-1');
  });

  it('`t` in the panel triggers the DAG and toasts its run key', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 });
    await h.press(KEY.ctrlK, ...'toggle dags', KEY.enter);
    await h.shows(/⧉ etl\s+3 tasks/);
    posts.length = 0;
    await h.press('t');
    await h.shows('▶ etl run manual-2');
    expect(posts.map((p) => p.url)).toEqual(['/dags/etl/trigger']);
  });
});

describe('DAG drawer', () => {
  it('runs → Enter loads the run into tasks; the gate shows approve / reject; `a` approves it', async () => {
    h = await openDrawer();
    await h.press(KEY.enter);
    await h.shows('run manual-1', /gate\s+awaiting/);
    const t = h.text();
    expect(t).toMatch(/gate\s+awaiting\s+► a approve · R/);
    expect(t).toMatch(/extract\s+success/);
    posts.length = 0;
    await h.press('j', 'a');
    await expect.poll(() => posts.length).toBe(1);
    expect(posts).toEqual([
      { url: '/dags/etl/runs/manual-1/tasks/gate/decision', body: '{"decision":"approve","by":"tui"}' },
    ]);
    await h.shows('approve gate');
  });

  it('Q16: `R` on a task that is not a waiting gate sends nothing', async () => {
    h = await openDrawer();
    await h.press(KEY.enter);
    await h.shows('run manual-1');
    posts.length = 0;
    await h.press('R');
    await h.shows('extract is not a waiting approval gate');
    expect(posts).toEqual([]);
  });

  it('Tab switches tabs (Q16); the graph shows layers and edges coloured by the run', async () => {
    h = await openDrawer();
    await h.press(KEY.enter); // run opened, tasks tab
    await h.shows('run manual-1');
    await h.press(KEY.tab, KEY.tab, KEY.tab, KEY.tab); // tasks → xcom → logs → runs → graph
    const t = h.text();
    expect(t).toMatch(/0 \[extract success\]/);
    expect(t).toMatch(/1 \[gate awaiting\]/);
    expect(t).toContain('extract ─▶ gate');
    expect(t).toContain('gate ─▶ load');
    await h.press(KEY.right, KEY.right);
    expect(h.text()).toMatch(/extract\.rows\s+42/);
  });

  it('Enter on a task shows its log to the end', async () => {
    h = await openDrawer();
    await h.press(KEY.enter);
    await h.shows('run manual-1');
    await h.press(KEY.enter);
    await h.shows('── end of log ──');
    const t = h.text();
    expect(t).toContain('task: extract');
    expect(t).toContain('extracted 42 rows');
    expect(t).toContain('── end of log ──');
  });

  it('`b` asks for FROM..TO, posts it, and toasts the refusal with the daemon error', async () => {
    h = await openDrawer();
    posts.length = 0;
    await h.press('b', ...'2026-01-01..2026-01-03', KEY.enter);
    await h.shows('backfill: HTTP 400 — from must be an ISO date');
    expect(posts).toEqual([{ url: '/dags/etl/backfill', body: '{"from":"2026-01-01","to":"2026-01-03"}' }]);
    await h.press('b', ...'nonsense', KEY.enter);
    expect(h.text()).toContain('backfill wants: FROM..TO (ISO dates)');
  });

  it('Esc closes the drawer and its task log stream', async () => {
    h = await openDrawer();
    await h.press(KEY.esc);
    expect(h.text()).not.toContain('runs  graph');
  });
});

describe('the scopes of the token (spec 10 §5.4)', () => {
  it('a control-only token: the waiting gate shows no approve / reject hint and a / R send nothing', async () => {
    h = await openDrawer(whoamiFor('view', 'control'));
    await h.press(KEY.enter);
    await h.shows('run manual-1', /gate\s+awaiting/);
    expect(h.text()).not.toContain('a approve');
    expect(h.text()).toContain('t trigger · b backfill');
    posts.length = 0;
    await h.press('j', 'a', 'R');
    // `t` still triggers: its POST, answered after any decision, shows none was sent before it.
    await h.press('t');
    await h.shows('▶ etl run manual-2');
    expect(posts.map((p) => p.url)).toEqual(['/dags/etl/trigger']);
  });

  it('a view-only token: t, b and t in the panel do nothing, and the palette has no Trigger DAG', async () => {
    h = await openDrawer(whoamiFor('view'));
    expect(h.text()).not.toContain('t trigger');
    posts.length = 0;
    await h.press('t', 'b', ...'2026-01-01..2026-01-03', KEY.enter);
    expect(h.text()).not.toContain('backfill FROM..TO');
    await h.press(KEY.esc, KEY.ctrlK, ...'toggle dags', KEY.enter);
    await h.shows(/⧉ etl\s+3 tasks/);
    await h.press('t', 'r');
    await h.shows('↻ reloading DAGs');
    expect(posts).toEqual([]);
    await h.press(KEY.ctrlK, ...'trigger dag');
    await h.shows('⌕ trigger dag');
    expect(h.text()).not.toContain('Trigger DAG: etl');
  });
});

describe('parseBackfill', () => {
  it('splits on .. or spaces into exactly two parts', () => {
    expect(parseBackfill('a..b')).toEqual({ from: 'a', to: 'b' });
    expect(parseBackfill(' a  b ')).toEqual({ from: 'a', to: 'b' });
    expect(parseBackfill('a')).toBeNull();
    expect(parseBackfill('a..b..c')).toBeNull();
  });
});
