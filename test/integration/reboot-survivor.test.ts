// Spec 09 §9.5, vector 44, on real daemons: a daemon SIGKILLed while its @reboot job runs leaves
// the job's process running; restarted in the same OS boot with the boot markers gone, it counts
// that survivor as the boot run and launches nothing. Beside it, an in-flight record whose pid was
// recycled (a process started long after the record) and one whose pid is dead are closed as
// `reconciled-crash`, and their jobs run.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { pidAlive } from '../../src/util/pid.ts';
import { programEntry } from '../helpers/built.ts';
import { stopChild } from '../helpers/child.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

const ENTRY = programEntry();
const HOST = 'survivor-host';

const dir = writeTree({}, true);
const statePath = join(dir, 'state');
const conf = join(dir, 'c.yaml');
writeFileSync(
  conf,
  [
    'state:',
    `  path: ${statePath}`,
    '  topology: single-node',
    'jobs:',
    '  - name: J',
    '    command: sleep 600',
    '    schedule: "@reboot"',
    '  - name: K',
    '    command: "true"',
    '    schedule: "@reboot"',
    '  - name: L',
    '    command: "true"',
    '    schedule: "@reboot"',
    '',
  ].join('\n'),
);

/** Process groups to kill at the end, whatever happened (a job leads its own group). */
const leftovers: number[] = [];
const daemons: ChildProcess[] = [];

afterAll(async () => {
  await Promise.all(daemons.map((d) => stopChild(d)));
  for (const pid of leftovers)
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
});

function startDaemon(): { child: ChildProcess; out: () => string } {
  let out = '';
  const child = spawn(process.execPath, [...ENTRY, '-c', conf], {
    cwd: join(import.meta.dirname, '..', '..'),
    env: { ...process.env, HOSTNAME: HOST },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  daemons.push(child);
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    out += String(d);
  });
  return { child, out: () => out };
}

/** The in-flight records of a job, oldest first. */
function inflight(job: string): Record<string, unknown>[] {
  const db = new Database(join(statePath, 'cronstable.db'), { readonly: true });
  try {
    return (
      db.prepare('SELECT data FROM records WHERE stream = ? ORDER BY id').all(`inflight/${job}`) as {
        data: string;
      }[]
    ).map((r) => JSON.parse(r.data) as Record<string, unknown>);
  } finally {
    db.close();
  }
}

describe('@reboot: a surviving run is this boot run (spec 09 §9.5)', () => {
  it('v44: after SIGKILL and lost boot markers, the survivor counts and J is not launched', async () => {
    const first = startDaemon();
    const open = await until('J open in-flight record', 60_000, async () => {
      const rec = inflight('J').at(-1);
      return rec?.kind === 'open' ? rec : null;
    });
    const pid = open.pid as number;
    leftovers.push(pid);
    expect(open).toMatchObject({ host: HOST, pid: expect.any(Number), startedAt: expect.any(String) });
    // K and L ran and closed before the crash.
    await until('K and L closed', 30_000, async () =>
      inflight('K').at(-1)?.kind === 'closed' && inflight('L').at(-1)?.kind === 'closed' ? true : null,
    );
    const exited = new Promise((r) => first.child.once('exit', r));
    first.child.kill('SIGKILL');
    await exited;
    expect(pidAlive(pid)).toBe(true);

    // The boot markers are lost; K's pid now names another process (started now, long after the
    // record's start), and L's pid is dead.
    const db = new Database(join(statePath, 'cronstable.db'));
    db.prepare("DELETE FROM records WHERE stream LIKE 'reboot/%'").run();
    db.close();
    const recycled = spawn('sleep', ['600'], { stdio: 'ignore', detached: true });
    leftovers.push(recycled.pid as number);
    const dead = spawn('true');
    await new Promise((r) => dead.once('exit', r));
    const store = await openStore({
      path: statePath,
      namespace: 'default',
      topology: 'single-node',
      inline: true,
    });
    const stale = {
      kind: 'open',
      host: HOST,
      proc: 'a-previous-daemon',
      startedAt: '2020-01-01T00:00:00.000Z',
    };
    await store.append('inflight/K', { ...stale, pid: recycled.pid as number });
    await store.append('inflight/L', { ...stale, pid: dead.pid as number });
    await store.close();

    const second = startDaemon();
    await until('the survivor INFO', 60_000, async () =>
      second
        .out()
        .includes(
          `INFO:cronstable:Job J (@reboot): a previous daemon's run (pid ${pid}) is still running; it counts as the boot run and the launch is skipped`,
        )
        ? true
        : null,
    );
    await until('K and L launched', 30_000, async () =>
      /Starting job K/.test(second.out()) && /Starting job L/.test(second.out()) ? true : null,
    );
    expect(second.out()).toContain(
      `Job J: the previous daemon's run (pid ${pid}) still appears to be running; leaving its in-flight record open`,
    );
    expect(second.out()).not.toContain('Starting job J');
    expect(second.out()).not.toContain('Job J: @reboot already ran during this boot');
    // J's record stays open and nothing marks this boot as run; K and L were reconciled.
    expect(inflight('J').at(-1)).toMatchObject({ kind: 'open', pid });
    for (const job of ['K', 'L'])
      expect(inflight(job).map((r) => r.reason ?? r.kind)).toEqual(
        expect.arrayContaining(['reconciled-crash', 'finished']),
      );
    const check = new Database(join(statePath, 'cronstable.db'), { readonly: true });
    const markers = check
      .prepare("SELECT stream FROM records WHERE stream LIKE 'reboot/%' ORDER BY stream")
      .all();
    check.close();
    expect(markers).toEqual([{ stream: 'reboot/K' }, { stream: 'reboot/L' }]);
    expect(pidAlive(pid)).toBe(true);
  });
});
