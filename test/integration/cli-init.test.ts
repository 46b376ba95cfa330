// Spec 09 §9.6, vector 45: `cronstable init` writes a starter that `-v` accepts and a daemon runs,
// and refuses a file or a live configuration directory; `state` on a config without a state section
// fails on stderr only (§9.7).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { programEntry } from '../helpers/built.ts';
import { stopChild } from '../helpers/child.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

// The build when it is current (`npm test` builds first): the file starts seven programs.
const ENTRY = programEntry();
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [...ENTRY, ...args], {
    encoding: 'utf8',
    cwd: join(import.meta.dirname, '..', '..'),
  });

describe('cronstable init', () => {
  it('v45: writes a starter that validates, then refuses a live directory and a file', () => {
    const t = writeTree({ 'hosts.txt': 'x\n' }, true);
    const target = join(t, 'i');
    const first = cli('init', target);
    expect(first.status).toBe(0);
    expect(first.stdout).toBe(
      `wrote ${target}/cronstable.yaml\nstart the scheduler with: cronstable -c ${target}\n`,
    );
    expect(readFileSync(join(target, 'cronstable.yaml'), 'utf8')).toContain(
      'echo "hello from cronstable on $(hostname)"',
    );
    const valid = cli('-c', target, '-v');
    expect(valid.status).toBe(0);
    expect(valid.stderr).toContain('Configuration is valid.');

    const again = cli('init', target);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(
      `cronstable init: ${target} already holds configuration (cronstable.yaml); refusing to add a starter to a live setup`,
    );
    const file = cli('init', join(t, 'hosts.txt'));
    expect(file.status).toBe(1);
    expect(file.stderr).toContain(
      `cronstable init: ${join(t, 'hosts.txt')} is a file; init writes a starter file`,
    );

    const other = join(t, 'other');
    const both = cli('-c', join(t, 'elsewhere'), 'init', other);
    expect(both.status).toBe(0);
    expect(both.stderr).toContain(
      `cronstable init: -c ${join(t, 'elsewhere')} and DIRECTORY ${other} disagree; writing to ${other}`,
    );
  });

  it('v45: state on a config without a state section exits 1, nothing on stdout, the error on stderr', () => {
    const t = writeTree({
      'nostate.yaml': 'jobs:\n  - name: J\n    command: "true"\n    schedule: "* * * * *"\n',
    });
    const r = cli('-c', join(t, 'nostate.yaml'), 'state', 'check');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('cronstable state error: the configuration at');
    expect(r.stderr).toContain("has no 'state' section");
  });

  it('the starter runs: a daemon on it, with its commented web block switched on, runs hello', async () => {
    const target = join(writeTree({}, true), 'conf');
    expect(cli('init', target).status).toBe(0);
    const file = join(target, 'cronstable.yaml');
    const port = await freePort();
    // What a user does next: uncomment the web block (only its address changes, to a free port).
    const starter = readFileSync(file, 'utf8');
    const enabled = starter
      .replace(/^# (web:| {2}listen:| {4}- http| {2}authToken:| {4}fromEnvVar:)/gm, '$1')
      .replace('http://127.0.0.1:8080', `http://127.0.0.1:${port}`);
    expect(enabled).not.toBe(starter);
    writeFileSync(file, enabled);
    const token = 'starter-token-0123456789';
    const daemon = spawn(process.execPath, [...ENTRY, '-c', target], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, CRONSTABLE_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    daemon.stdout?.on('data', (d) => {
      out += String(d);
    });
    daemon.stderr?.on('data', (d) => {
      out += String(d);
    });
    try {
      const started = await until('POST /jobs/hello/start', 30_000, async () => {
        const r = await fetch(`http://127.0.0.1:${port}/jobs/hello/start`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
        });
        return r.status;
      });
      expect(started).toBeLessThan(300);
      // The job's line comes before the daemon's record of its exit: wait for both.
      await until('hello output and its exit', 30_000, async () =>
        out.includes(`hello from cronstable on ${hostname()}`) && /Job hello exit code \d+/.test(out)
          ? true
          : null,
      );
      expect(out).toMatch(/Job hello exit code 0/);
    } finally {
      await stopChild(daemon);
    }
  });
});
