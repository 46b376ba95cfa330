// Issue 9, herd: a real daemon process with 500 jobs due in the same second. Every job starts
// exactly once, and the burst goes through the spawn path built for it (the jobs' parents are
// the spawner processes, not the daemon), with output, exit codes and kill-on-timeout intact.
// Not timed: lateness is a benchmark (`npm run bench -- --only daemon`).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { processGone } from '../helpers/child.ts';
import { writeTree } from '../helpers/tmp.ts';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'cronstable.mjs');
const JOBS = 500;
// Long enough for a whole herd to start on a slow, loaded CI machine (it took over 9 s there).
const PERIOD = 20;

/** 498 plain jobs, then one that talks and fails and one that overruns its executionTimeout. */
function config(dir: string, port: number, statsdPort: number): string {
  const starts = join(dir, 'starts');
  const record = (name: string) => `echo "${name} $PPID $(date +%s)" >> ${starts}`;
  const lines = [`web:\n  listen:\n    - http://127.0.0.1:${port}`, 'jobs:'];
  const job = (name: string, command: string, extra: string[] = []) =>
    lines.push(
      `  - name: ${name}`,
      `    command: '${command.replaceAll("'", "''")}'`,
      `    schedule: "*/${PERIOD} * * * * * *"`,
      ...extra,
    );
  for (let i = 0; i < JOBS - 2; i++) job(`herd-${i}`, record(`herd-${i}`));
  job('talker', `${record('talker')}; echo "out line"; echo "err line" >&2; exit 3`, [
    '    captureStdout: true',
    '    streamPrefix: "[{job_name} {stream_name}] "',
    '    statsd:',
    '      host: 127.0.0.1',
    `      port: ${statsdPort}`,
    '      prefix: herd.talker',
  ]);
  job('sleeper', `${record('sleeper')}; echo $$ >> ${join(dir, 'sleeper.pids')}; sleep 60`, [
    '    executionTimeout: 1',
    '    killTimeout: 1',
  ]);
  return `${lines.join('\n')}\n`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.json();
}

interface Start {
  name: string;
  ppid: number;
  at: number;
}

describe('a herd of 500 jobs due in the same second (real daemon)', () => {
  let dir = '';
  let base = '';
  let daemon: ChildProcess;
  let stdout = '';
  let stderr = '';
  let herd = 0;
  let starts: Start[] = [];
  let talkerRuns: { exit_code: number; fail_reason: string | null }[] = [];
  let sleeperRuns: { exit_code: number }[] = [];
  let statsd: Socket;
  const datagrams: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    statsd = createSocket('udp4');
    statsd.on('message', (m) => datagrams.push(m.toString()));
    await new Promise<void>((r) => statsd.bind(0, '127.0.0.1', r));
    dir = writeTree({}, true);
    writeFileSync(join(dir, 'jobs.yaml'), config(dir, port, statsd.address().port));
    base = `http://127.0.0.1:${port}`;
    daemon = spawn(process.execPath, [BUNDLE, '-c', join(dir, 'jobs.yaml'), '--shutdown-timeout', '5'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    daemon.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    daemon.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const bootDeadline = Date.now() + 30_000;
    for (;;) {
      try {
        const res = await fetch(`${base}/version`, { signal: AbortSignal.timeout(1000) });
        if (res.ok) break;
      } catch {
        if (Date.now() > bootDeadline) throw new Error(`daemon did not start:\n${stderr}`);
        await sleep(100);
      }
    }
    // The first whole herd: the first period boundary at least 1.5 s after the daemon answers.
    herd = Math.ceil((Date.now() / 1000 + 1.5) / PERIOD) * PERIOD;
    const file = join(dir, 'starts');
    const read = (): Start[] =>
      existsSync(file)
        ? readFileSync(file, 'utf8')
            .trim()
            .split('\n')
            .map((line) => line.split(' '))
            .map(([name, ppid, at]) => ({ name: name!, ppid: Number(ppid), at: Number(at) }))
        : [];
    // Wait until this herd has started in full (or the next one is due), and the sleeper was killed.
    const until = (herd + PERIOD - 1) * 1000;
    while (Date.now() < until) {
      const herdStarts = read().filter((s) => Math.floor(s.at / PERIOD) * PERIOD === herd);
      if (herdStarts.length >= JOBS && Date.now() > herd * 1000 + 3000) break;
      await sleep(200);
    }
    starts = read();
    talkerRuns = ((await getJson(`${base}/jobs/talker/runs`)) as { runs: typeof talkerRuns }).runs;
    // The sleeper is among the last of the burst: its timeout may still be running, and on a
    // loaded machine its kill and record can land after the next herd is due (any finished run
    // of it must be a kill, so waiting past that herd is harmless).
    const sleeperUntil = Math.max(until, Date.now() + 15_000);
    while (Date.now() < sleeperUntil) {
      sleeperRuns = ((await getJson(`${base}/jobs/sleeper/runs`)) as { runs: typeof sleeperRuns }).runs;
      if (sleeperRuns.length > 0) break;
      await sleep(200);
    }
  }, 120_000);

  afterAll(async () => {
    statsd?.close();
    if (daemon && daemon.exitCode === null) {
      daemon.kill('SIGTERM');
      await new Promise((r) => daemon.once('exit', r));
    }
  });

  it('starts every one of the 500 due jobs exactly once', () => {
    const inHerd = starts.filter((s) => Math.floor(s.at / PERIOD) * PERIOD === herd);
    const counts = new Map<string, number>();
    for (const s of inHerd) counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
    const names = [...Array.from({ length: JOBS - 2 }, (_, i) => `herd-${i}`), 'talker', 'sleeper'];
    expect(names.filter((n) => counts.get(n) !== 1)).toEqual([]);
    expect(inHerd).toHaveLength(JOBS);
    // No herd of the run (including a partial next one) started any job twice.
    const perHerd = new Map<string, number>();
    for (const s of starts) {
      const key = `${Math.floor(s.at / PERIOD)}:${s.name}`;
      perHerd.set(key, (perHerd.get(key) ?? 0) + 1);
    }
    expect([...perHerd.values()].filter((n) => n > 1)).toEqual([]);
  });

  // The spawners are perl programs; without perl the burst spawns in-thread.
  const hasPerl = spawnSync('perl', ['-e', '1']).status === 0;

  it.skipIf(!hasPerl)(
    'launches the burst through spawner processes (one per core), not by forking the daemon',
    () => {
      const inHerd = starts.filter((s) => Math.floor(s.at / PERIOD) * PERIOD === herd);
      const byDaemon = inHerd.filter((s) => s.ppid === daemon.pid).length;
      const parents = new Set(inHerd.map((s) => s.ppid).filter((p) => p !== daemon.pid));
      // The scheduler tells the spawn policy how many fires are due: none of them forks the daemon.
      expect(byDaemon).toBe(0);
      expect(parents.size).toBeGreaterThanOrEqual(1);
      expect(parents.size).toBeLessThanOrEqual(availableParallelism());
      for (const spawner of parents) {
        const fields = readFileSync(`/proc/${spawner}/stat`, 'utf8').split(') ')[1]!.split(' ');
        // Its parent is the daemon, and it leads a session of its own (stat fields 4 and 6).
        expect(fields[1]).toBe(String(daemon.pid));
        expect(fields[3]).toBe(String(spawner));
      }
      const tail = inHerd.filter((s) => s.name === 'talker' || s.name === 'sleeper');
      expect(tail.every((s) => parents.has(s.ppid))).toBe(true);
    },
  );

  it("relays a spawned job's output and exit code", () => {
    expect(stdout).toContain('[talker stdout] out line');
    expect(stderr).toContain('[talker stderr] err line');
    expect(talkerRuns.length).toBeGreaterThan(0);
    expect(talkerRuns[0]!.exit_code).toBe(3);
    expect(talkerRuns[0]!.fail_reason).toContain('retcode=3');
  });

  it('sends statsd start and stop for a job launched in the burst (its pid arrives after launch)', () => {
    const text = datagrams.join('');
    expect(text).toContain('herd.talker.start:1|g');
    expect(text).toMatch(/herd\.talker\.stop:/);
  });

  it('kills a spawned job that overruns its executionTimeout, whole group included', () => {
    expect(sleeperRuns.length).toBeGreaterThan(0);
    expect(sleeperRuns[0]!.exit_code).toBe(-100);
    expect(stdout + stderr).toContain('Job sleeper exceeded its executionTimeout of 1 seconds');
    const pids = readFileSync(join(dir, 'sleeper.pids'), 'utf8').trim().split('\n').map(Number);
    expect(processGone(pids[0]!)).toBe(true);
  });
});
