// The incident timeline, mitigate console and write-up (spec 08 §4.9), over the board's fixture (one job
// failing). ink-testing-library around a real Controller and a loopback fixture daemon.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { incidentSet } from '../../src/tui/views/incident/set.ts';
import { writeupText } from '../../src/tui/views/incident/writeup.ts';
import {
  FIXTURE_NOW,
  FixtureDaemon,
  fixtureJobs,
  type Harness,
  KEY,
  mountTui,
} from '../helpers/tui-fixture.ts';

const daemon = new FixtureDaemon();
const home = mkdtempSync(join(tmpdir(), 'tui-incident-'));
beforeAll(() => daemon.start());
afterAll(async () => {
  await daemon.stop();
  rmSync(home, { recursive: true, force: true });
});

let h: Harness;
afterEach(() => h?.close());

describe('incident timeline', () => {
  it('`i` lists every latest finish newest first, the failure with its exit and the blast radius', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 });
    await h.press('i');
    const t = h.text();
    expect(t).toContain('incident timeline');
    const rows = t.split('\n').filter((l) => /│ .*ago /.test(l));
    // heartbeat 1s, colour-probe 7s, nightly-backup 24s, report-daily 30s
    expect(rows.map((r) => /(heartbeat|colour-probe|nightly-backup|report-daily)/.exec(r)?.[1])).toEqual([
      'heartbeat',
      'colour-probe',
      'nightly-backup',
      'report-daily',
    ]);
    expect(t).toMatch(/✕ nightly-backup\s+exit 69\s+949ms\s+◉ blast radius/);
    await h.press('f');
    expect(h.text()).toContain('incident timeline — failing only');
    const failingRows = h
      .text()
      .split('\n')
      .filter((l) => /│ .*ago /.test(l));
    expect(failingRows).toHaveLength(1);
    expect(failingRows[0]).toContain('nightly-backup');
    await h.press(KEY.enter);
    expect(h.text()).toContain('logs  history  resources  schedule');
    expect(h.text()).not.toContain('incident timeline');
  });

  it('`i` again closes it', async () => {
    h = mountTui(daemon);
    await h.press('i', 'i');
    expect(h.text()).not.toContain('incident timeline');
  });
});

describe('mitigate console', () => {
  it('`m` from the timeline opens on the incident set; `s` starts it, logs and says done', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 });
    await h.press('i', 'm');
    expect(h.text()).toContain('1 job(s) in the set — incident set');
    expect(h.text()).toContain('nightly-backup');
    daemon.requests.length = 0;
    await h.press('s');
    await h.shows('done: 1 ok');
    expect(daemon.requests.filter((r) => r.method === 'POST').map((r) => r.url)).toEqual([
      '/jobs/nightly-backup/start',
    ]);
    const t = h.text();
    expect(t).toContain('— starting 1 job(s) —');
    expect(t).toContain('✓ started nightly-backup');
    expect(t).toContain('done: 1 ok');
  });

  it('`x` with nothing of the set running says so and sends nothing', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 });
    await h.press(KEY.ctrlK, ...'mitigate', KEY.enter);
    expect(h.text()).toContain('— failing jobs');
    daemon.requests.length = 0;
    await h.press('x');
    expect(h.text()).toContain('nothing to cancel (no eligible jobs)');
    expect(daemon.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('`y` writes the Markdown write-up to a file and the clipboard (OSC 52)', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 }, home);
    await h.press('i', 'm', 'y');
    const file = readdirSync(home).find((f) => /^cronstable-incident-\d{8}-\d{6}\.md$/.test(f));
    expect(file).toBeDefined();
    const text = readFileSync(join(home, file!), 'utf8');
    expect(text).toContain('## cronstable incident — incident set');
    expect(text).toContain('As of 09:00:00 UTC:');
    expect(text).toContain(
      '- `nightly-backup`: exit=69, reason: failsWhen=nonzeroReturn and retcode=69, finished 24s ago',
    );
    expect(text).toContain('Verdict: JOB FAILING — nightly-backup — exit 69');
    const osc = h.raw.find((r) => r.startsWith('\u001b]52;c;'))!;
    expect(Buffer.from(osc.slice(7, -1), 'base64').toString('utf8')).toBe(text);
    // the toast is cut to half the width; its start names the file
    expect(h.text()).toContain(`writeup: ${home.slice(0, 20)}`);
  });
});

describe('incident set', () => {
  it('is the largest correlated group, else every failing job', () => {
    const jobs = fixtureJobs();
    expect(incidentSet(jobs)).toEqual(['nightly-backup']);
    const fail = (name: string, code: number, s: number) => ({
      ...jobs[0]!,
      name,
      running: false,
      last_run: {
        outcome: 'failure' as const,
        exit_code: code,
        started_at: new Date(FIXTURE_NOW - s * 1000 - 1000).toISOString(),
        finished_at: new Date(FIXTURE_NOW - s * 1000).toISOString(),
        duration: 1,
        fail_reason: null,
        resources: null,
      },
    });
    const many = [fail('a', 3, 10), fail('b', 3, 20), fail('c', 1, 30)];
    expect(incidentSet(many).sort()).toEqual(['a', 'b']);
  });

  it('the write-up names each member once with its exit', () => {
    const s = { data: { jobs: fixtureJobs(), cluster: null }, now: FIXTURE_NOW } as never;
    const text = writeupText(s, 'failing jobs', ['nightly-backup']);
    expect(text.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(1);
  });
});
