// `cronstable tui`'s operations panels end to end (spec 08 §8 vectors for §4.7, §4.9-§4.12, §4.14, §4.15): the
// built CLI in a real pseudo-terminal against a real daemon on loopback with durable state and a DAG behind an
// approval gate, read through a headless xterm. Each test drives the keys a person would press.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { DAEMON, type E2eDaemon, startE2eDaemon, tearDownE2e } from '../helpers/e2e-daemon.ts';
import { HEARTBEAT_AND_BACKUP } from '../helpers/tui-e2e-fixture.ts';
import { TuiPty } from '../helpers/tui-pty.ts';
import { until } from '../helpers/until.ts';

const CONFIG = (port: number, dir: string): string => `# operations fixture for the terminal dashboard
state:
  path: ${join(dir, 'state')}
  topology: single-node
  deploymentId: tuiops
jobs:
${HEARTBEAT_AND_BACKUP}  - name: report-daily
    schedule: "0 6 * * mon-fri"
    captureStdout: true
    command: echo report ok
web:
  listen:
    - http://127.0.0.1:${port}
dags:
  - name: hotfix-release
    tasks:
      - id: build-hotfix
        command: echo built
      - id: approve
        type: approval
        dependsOn:
          - build-hotfix
      - id: deploy
        dependsOn:
          - approve
        command: echo deployed
`;

const ESC = '\u001b';
const ENTER = '\r';
const CTRL_K = '\u000b';

let dir = '';
let home = '';
let base = '';
let daemon: E2eDaemon | null = null;
const ttys: TuiPty[] = [];

function tui(args: string[], opts: { boot?: boolean } = {}): TuiPty {
  const t = new TuiPty(['--url', base, ...(opts.boot ? [] : ['--no-boot']), ...args], {
    cwd: home,
    env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), LANG: 'C.UTF-8' },
  });
  ttys.push(t);
  return t;
}

/** Types keys one at a time, as a person would (Ink reads a burst as one paste). */
async function type(t: TuiPty, ...keys: string[]): Promise<void> {
  for (const k of keys) {
    t.write(k);
    await new Promise((r) => setTimeout(r, 40));
  }
}

const prefsFile = () => join(home, '.config', 'cronstable', 'tui.json');

beforeAll(async () => {
  if (!existsSync(DAEMON)) throw new Error(`${DAEMON} is missing: run npm run build`);
  dir = mkdtempSync(join(tmpdir(), 'tui-ops-e2e-'));
  home = mkdtempSync(join(tmpdir(), 'tui-ops-home-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  writeFileSync(join(dir, 'cronstable.yaml'), CONFIG(port, dir));
  daemon = await startE2eDaemon(dir, { base });
  for (const j of ['nightly-backup', 'report-daily'])
    await fetch(`${base}/jobs/${j}/start`, { method: 'POST' });
  await until('the fixture runs to finish', 15_000, async () => {
    const jobs = (await (await fetch(`${base}/jobs`)).json()) as Array<{ name: string; last_run: unknown }>;
    return ['nightly-backup', 'report-daily'].every((n) => jobs.find((j) => j.name === n)?.last_run)
      ? true
      : null;
  });
}, 40_000);

afterEach(() => {
  for (const t of ttys.splice(0)) t.kill('SIGKILL');
});

afterAll(async () => {
  await tearDownE2e(null, daemon, dir, home);
});

describe('cronstable tui operations panels in a pseudo-terminal', () => {
  it('DAG drawer: trigger, open the run, approve the waiting gate; the run goes on to deploy', async () => {
    const t = tui([]);
    await t.waitFor('● live');
    await type(t, CTRL_K, ...'dag: hotfix');
    await t.waitFor('DAG: hotfix-release'); // /dags arrives just after the first poll
    await type(t, ENTER);
    await t.waitFor('runs  graph  tasks  xcom  logs');
    await type(t, 't');
    await t.waitFor(/▶ hotfix-release run \S+/);
    await t.waitFor(/▎\S+\s+running/, 8000); // the runs list reloads after the trigger
    await type(t, ENTER);
    // the gate waits once build-hotfix is done; the open run refreshes each poll (Q18)
    await t.waitFor(/approve\s+awaiting\s+► a approve · R reject/, 15_000);
    await type(t, 'j', 'a');
    await t.waitFor('approve approve');
    const screen = await t.waitFor(/deploy\s+success/, 15_000);
    expect(screen).toMatch(/build-hotfix\s+success/);
    await type(t, ESC);
    await t.waitFor((s) => !s.includes('runs  graph'));
  });

  it('incident: `i` shows the failure as the blast radius; `m`, `s` restarts it; `y` writes it up', async () => {
    const t = tui([]);
    await t.waitFor('● live');
    await type(t, 'i');
    await t.waitFor(/✕ nightly-backup\s+exit 69.*◉ blast radius/);
    await type(t, 'm');
    await t.waitFor('1 job(s) in the set — incident set');
    const before = (await (await fetch(`${base}/jobs/nightly-backup/runs`)).json()) as { runs: unknown[] };
    await type(t, 's');
    await t.waitFor('done: 1 ok');
    expect(await t.screen()).toContain('✓ started nightly-backup');
    await until('the restarted run to be recorded', 10_000, async () => {
      const r = (await (await fetch(`${base}/jobs/nightly-backup/runs`)).json()) as { runs: unknown[] };
      return r.runs.length > before.runs.length ? true : null;
    });
    await type(t, 'y');
    await t.waitFor('writeup: ');
    const file = readdirSync(home).find((f) => /^cronstable-incident-\d{8}-\d{6}\.md$/.test(f));
    expect(file).toBeDefined();
    const text = readFileSync(join(home, file!), 'utf8');
    expect(text).toContain('- `nightly-backup`: exit=69');
    // the same text went out as one OSC 52
    const osc = /\u001b\]52;c;([A-Za-z0-9+/=]+)\u0007/.exec(t.raw);
    expect(Buffer.from(osc![1]!, 'base64').toString('utf8')).toBe(text);
  });

  it('multi-tail: `m`, add two jobs by name, their lines interleave behind labels; Esc closes', async () => {
    const t = tui([]);
    await t.waitFor('● live');
    await type(t, 'm');
    await t.waitFor('empty — a to add a job');
    await type(t, 'a', ...'heartbeat', ENTER);
    await t.waitFor(/heartbeat\s*▏beat \d\d:\d\d:\d\d/, 10_000);
    await type(t, 'a', ...'nightly', ENTER);
    await t.waitFor(/nightly-backup\s*▏rsync: write failed/, 10_000);
    expect(await t.screen()).toContain('multi-tail (2/4)');
    await type(t, ESC);
    await t.waitFor((s) => !s.includes('multi-tail'));
  });

  it('settings persist at once and never the token (the prefs half of T22); a restart paints the saved theme', async () => {
    const t = tui(['--token', 'tok-s3cret-value']);
    await t.waitFor('● live');
    await type(t, CTRL_K, ...'open settings', ENTER);
    await t.waitFor(`prefs file: ${prefsFile().slice(0, 30)}`);
    await type(t, ENTER); // theme: standard (the default) -> carolina
    await until('the prefs file to name carolina', 5000, async () =>
      existsSync(prefsFile()) && readFileSync(prefsFile(), 'utf8').includes('"theme": "carolina"')
        ? true
        : null,
    );
    const saved = readFileSync(prefsFile(), 'utf8');
    expect(saved).not.toContain('tok-s3cret-value');
    expect(Object.keys(JSON.parse(saved))).toHaveLength(13);
    t.kill('SIGKILL');
    const again = tui([]);
    await again.waitFor('● live');
    // carolina's phosphor background 06131d
    expect(again.raw).toContain('48;2;6;19;29');
    await type(again, CTRL_K, ...'open settings', ENTER);
    await again.waitFor(/Theme\s+carolina/);
    writeFileSync(prefsFile(), saved.replace('"carolina"', '"standard"'));
  });

  it('boot self-test with --boot reports the daemon, then hands over to the board; boot_last saved', async () => {
    const t = tui(['--boot'], { boot: true });
    await t.waitFor('POWER-ON SELF-TEST');
    const screen = await t.waitFor('JOB(S) FAILING — the board wants you', 10_000);
    expect(screen).toMatch(/link \.+ OK http:\/\/127\.0\.0\.1:\d+ \(\d+ms\)/);
    expect(screen).toMatch(/job set \.+ 3 job\(s\)/);
    expect(screen).toContain('cluster ..... standalone');
    await t.waitFor('● live', 5000);
    const prefs = JSON.parse(readFileSync(prefsFile(), 'utf8')) as { boot_last: number };
    expect(Date.now() / 1000 - prefs.boot_last).toBeLessThan(60);
  });

  it('boot self-test: the first key skips it and is consumed', async () => {
    const t = tui(['--boot'], { boot: true });
    await t.waitFor('POWER-ON');
    await type(t, 'q');
    await t.waitFor('● live', 5000);
    expect(await t.screen()).not.toContain('POWER-ON');
  });

  it('Q12: Ctrl-C during the boot self-test quits (exit 0), it does not only skip', async () => {
    const t = tui(['--boot'], { boot: true });
    await t.waitFor('POWER-ON');
    t.write('\u0003');
    const exit = await Promise.race([
      t.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no exit within 3 s')), 3000)),
    ]);
    expect(exit.exitCode).toBe(0);
    expect(t.raw).toContain('\u001b[?1049l');
  });

  it('state inspector: durable state view, a records stream fetched with Enter', async () => {
    const t = tui([]);
    await t.waitFor('● live');
    await type(t, CTRL_K, ...'toggle state', ENTER);
    await t.waitFor('view  documents  records');
    await t.waitFor('backend: sqlite');
    await type(t, '\t', '\t');
    await t.waitFor(/▎ \S+/);
    await type(t, ENTER);
    await t.waitFor(/item\(s\)/);
  });
});

describe('cronstable tui against a daemon that wants a token', () => {
  let authDir = '';
  let authHome = '';
  let authBase = '';
  let authDaemon: E2eDaemon | null = null;

  beforeAll(async () => {
    authDir = mkdtempSync(join(tmpdir(), 'tui-ops-auth-'));
    authHome = mkdtempSync(join(tmpdir(), 'tui-ops-auth-home-'));
    const port = await freePort();
    authBase = `http://127.0.0.1:${port}`;
    writeFileSync(
      join(authDir, 'cronstable.yaml'),
      `jobs:
  - name: locked-job
    schedule: "0 5 * * *"
    command: echo locked
web:
  authToken:
    value: s3cret
  listen:
    - http://127.0.0.1:${port}
`,
    );
    authDaemon = await startE2eDaemon(authDir, {
      base: authBase,
      ready: async (b) => (await fetch(`${b}/jobs`, { headers: { authorization: 'Bearer s3cret' } })).ok,
    });
  }, 40_000);

  afterAll(async () => {
    await tearDownE2e(null, authDaemon, authDir, authHome);
  });

  it('T22: the token modal shows dots, Enter lists the jobs, and no prefs write ever holds the token', async () => {
    const t = new TuiPty(['--url', authBase, '--no-boot'], {
      cwd: authHome,
      env: {
        HOME: authHome,
        XDG_CONFIG_HOME: join(authHome, '.config'),
        LANG: 'C.UTF-8',
        CRONSTABLE_WEB_TOKEN: '',
      },
    });
    ttys.push(t);
    await t.waitFor('access token');
    await type(t, ...'s3cret');
    await t.waitFor('⚿ ••••••');
    expect(await t.screen()).not.toContain('s3cret');
    await type(t, ENTER);
    await t.waitFor('locked-job', 8000);
    await t.waitFor('● live');
    // a settings change writes the prefs file: the token is not in it
    await type(t, CTRL_K, ...'open settings', ENTER);
    await t.waitFor('prefs file:');
    await type(t, 'j', ENTER); // light / dark -> paper
    const path = join(authHome, '.config', 'cronstable', 'tui.json');
    await until('the prefs file', 5000, async () => (existsSync(path) ? true : null));
    const text = readFileSync(path, 'utf8');
    expect(JSON.parse(text).light).toBe(true);
    expect(text).not.toContain('s3cret');
  });
});
