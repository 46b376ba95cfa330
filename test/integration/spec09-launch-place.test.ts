// Spec 09 §3 on a real daemon process: `workingDirectory` (relative, from `defaults:`, opted out,
// missing) and `priority` (idle; normal keeps the daemon's own nice, here 5). Every job is
// `@reboot` and prints what it sees; the daemon re-emits captured output on its stdout. Its web
// API shows `priority` on `GET /jobs` only when it is not `normal` (vector 24).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { programEntry } from '../helpers/built.ts';
import { stopChild } from '../helpers/child.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

const ENTRY = programEntry();

let daemon: ChildProcess;
let out = '';
let dir = '';
let port = 0;

const job = (name: string, command: string, extra: string[] = []) =>
  [
    `  - name: ${name}`,
    `    command: ${command}`,
    '    schedule: "@reboot"',
    '    captureStdout: true',
    '    streamPrefix: "[{job_name}] "',
    ...extra.map((l) => `    ${l}`),
  ].join('\n');

beforeAll(async () => {
  port = await freePort();
  dir = writeTree({}, true);
  mkdirSync(join(dir, 'w', 'rel', 'dir'), { recursive: true });
  mkdirSync(join(dir, 'srv'));
  const yaml = [
    'web:',
    '  listen:',
    `    - http://127.0.0.1:${port}`,
    'defaults:',
    `  workingDirectory: ${join(dir, 'srv')}`,
    'jobs:',
    job('v19', 'pwd', ['workingDirectory: rel/dir']),
    job('v20', '"true"', ['workingDirectory: /nonexistent/x']),
    job('v21a', 'pwd'),
    job('v21b', 'pwd', ['workingDirectory:']),
    job('v22idle', 'nice', ['priority: idle']),
    job('v22normal', 'nice', ['priority: normal']),
    '',
  ].join('\n');
  const file = join(dir, 'c.yaml');
  writeFileSync(file, yaml);
  // The daemon's cwd is $T/w, and it runs under nice 5.
  daemon = spawn('nice', ['-n', '5', process.execPath, ...ENTRY, '-c', file], {
    cwd: join(dir, 'w'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  daemon.stdout?.on('data', (d) => {
    out += String(d);
  });
  daemon.stderr?.on('data', (d) => {
    out += String(d);
  });
});

afterAll(async () => {
  await stopChild(daemon);
});

const lineOf = (name: string) =>
  until(`output of ${name}`, 30_000, async () => {
    const m = new RegExp(`^\\[${name}\\] (.*)$`, 'm').exec(out);
    return m ? m[1] : null;
  });

describe('workingDirectory and priority on a real daemon (spec 09 §3)', () => {
  it('v19: a relative workingDirectory is resolved against the daemon cwd', async () => {
    expect(await lineOf('v19')).toBe(join(dir, 'w', 'rel', 'dir'));
  });
  it('v20: a missing workingDirectory is a launch failure (exit 127) whose error names it', async () => {
    const line = await until('v20 launch failure', 30_000, async () =>
      /Job v20 could not be launched: .*\/nonexistent\/x/.test(out) && /Job v20 exit code 127/.test(out)
        ? true
        : null,
    );
    expect(line).toBe(true);
  });
  it('v21: defaults.workingDirectory reaches A; a blank one runs B in the daemon cwd', async () => {
    expect(await lineOf('v21a')).toBe(join(dir, 'srv'));
    expect(await lineOf('v21b')).toBe(join(dir, 'w'));
  });
  it('v24: GET /jobs shows "priority" only for a job away from normal', async () => {
    const jobs = await until('GET /jobs', 30_000, async () => {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/jobs`);
        return r.ok ? ((await r.json()) as Record<string, unknown>[]) : null;
      } catch {
        return null;
      }
    });
    const byName = new Map(jobs.map((j) => [j.name, j]));
    expect(byName.get('v22idle')?.priority).toBe('idle');
    for (const name of ['v22normal', 'v19', 'v21a']) expect(byName.get(name)).not.toHaveProperty('priority');
  });
  it('v22: idle runs at nice 19; normal keeps the daemon nice (5)', async () => {
    expect(await lineOf('v22idle')).toBe('19');
    expect(await lineOf('v22normal')).toBe('5');
  });
});
