// The built bundle and the Bun binary, run as real processes.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runtimeBin } from '../../scripts/runtimes.mjs';
import { VERBS } from '../../src/cli/verbs.ts';
import { standaloneBinary } from '../helpers/standalone-binary.ts';
import { writeTree } from '../helpers/tmp.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BUNDLE = join(ROOT, 'dist', 'cronstable.mjs');

function run(cmd: string, args: string[], opts: { cwd?: string } = {}) {
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const cli = (...args: string[]) => run(process.execPath, [BUNDLE, ...args]);
/** `cli` without blocking the worker, so several can run at once. */
const cliAsync = (...args: string[]): Promise<{ code: number | null; out: string; err: string }> =>
  new Promise((resolve) => {
    execFile(process.execPath, [BUNDLE, ...args], { cwd: ROOT, timeout: 60_000 }, (e, out, err) =>
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, out, err }),
    );
  });

beforeAll(() => {
  if (!existsSync(BUNDLE)) expect(run('npm', ['run', 'build']).code).toBe(0);
});

describe('cronstable CLI (bundle on Node)', () => {
  it('prints its version', () => {
    const r = cli('--version');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^cronstable \d+\.\d+\.\d+\n$/);
  });

  it('validates the demo config', () => {
    const r = cli('-c', 'example/demo', '-v');
    expect(r.err).toContain('INFO:cronstable:Configuration is valid.');
    expect(r.code).toBe(0);
  });

  it('suppresses the success line under -l WARNING but still exits 0', () => {
    const r = cli('-c', 'example/demo', '-v', '-l', 'WARNING');
    expect(r.err).not.toContain('Configuration is valid.');
    expect(r.code).toBe(0);
  });

  it('prints every config error with file:line:column and exits 1', () => {
    const dir = writeTree({
      'bad.yaml':
        'jobs:\n  - name: a\n    command: x\n    schedule: "* * * *"\n    saveLimit: -1\n  - name: b\n    command: x\n    schedule: "* * * * *"\n    timezone: Nowhere/Land\n',
    });
    const r = cli('-c', join(dir, 'bad.yaml'), '-v');
    expect(r.code).toBe(1);
    expect(r.err).toContain('ERROR:cronstable:Configuration error: ');
    expect(r.err).toContain(
      `${join(dir, 'bad.yaml')}:4:5: jobs[0].schedule: invalid schedule '* * * *': expected 5 to 7`,
    );
    expect(r.err).toContain(`${join(dir, 'bad.yaml')}:9:5: jobs[1].timezone: unknown timezone: Nowhere/Land`);
  });

  it('rejects an unknown log level with exit 2', () => {
    const r = cli('-c', 'example/demo', '-v', '-l', 'LOUD');
    expect(r.code).toBe(2);
    expect(r.err).toContain("invalid --log-level 'LOUD'");
  });

  it('v37: -l takes a level in any case; a misspelt one exits 2 with the usage line (spec 09 §7.7)', () => {
    const debug = cli('-c', 'example/demo', '-v', '-l', 'debug');
    expect(debug.code).toBe(0);
    expect(debug.err).toContain('INFO:cronstable:Configuration is valid.');
    const warn = cli('-c', 'example/demo', '-v', '-l', 'Warn');
    expect(warn.code).toBe(0);
    expect(warn.err).not.toContain('Configuration is valid.');
    const bad = cli('-c', 'example/demo', '-v', '-l', 'debugg');
    expect(bad.code).toBe(2);
    expect(bad.out).toBe('');
    expect(bad.err).toMatch(/^usage: cronstable \[-h\]/);
    expect(bad.err).toContain(
      "cronstable: error: invalid --log-level 'debugg' (use DEBUG, INFO, WARNING, ERROR or CRITICAL)",
    );
  });

  it('rejects unknown flags with usage and exit 2', () => {
    const r = cli('--frobnicate');
    expect(r.code).toBe(2);
    expect(r.err).toContain('usage: cronstable');
  });

  it('explains a missing default config path', () => {
    if (existsSync('/etc/cronstable.d')) return;
    const r = cli('-v');
    expect(r.code).toBe(1);
    // Spec 09 §9.7: the text points at `cronstable init`, then the help follows.
    expect(r.out).toBe('');
    expect(r.err).toContain(
      'cronstable error: configuration file not found at the default location (/etc/cronstable.d). Run `cronstable init` to create a starter configuration there, or point -c/--config at an existing file or directory.\nusage: cronstable',
    );
  });

  it('reports a missing -c path with the OS error', () => {
    const r = cli('-c', '/nonexistent/x.yaml', '-v');
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      "Configuration error: [Errno 2] No such file or directory: '/nonexistent/x.yaml'",
    );
  });

  it('prints the job-set id', () => {
    const r = cli('-c', 'example/demo', '--job-set-id');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^v1:[0-9a-f]{64}\n$/);
  });

  it('has --help on every verb', async () => {
    // Fifteen CLI starts at once (one after another they took over 30 s on a loaded machine).
    const [top, next, ...verbs] = await Promise.all(
      [['--help'], ['next', '--help'], ...VERBS.map(({ name }) => [name, '--help'])].map((a) =>
        cliAsync(...a),
      ),
    );
    expect(top!.out).toContain('-v, --validate-config');
    expect(next!.code).toBe(0);
    expect(next!.out + next!.err).toContain('--hash-key');
    // Every verb the top-level help lists (src/cli/verbs.ts, kept in step with the dispatcher by
    // test/integration/cli-verbs.test.ts) answers --help with its usage and exit 0, outside a job too.
    VERBS.forEach(({ name }, i) => {
      const r = verbs[i]!;
      expect(r.code, `${name} --help`).toBe(0);
      expect(r.out + r.err, `${name} --help`).toMatch(new RegExp(`usage: cronstable .*\\b${name}\\b`));
    });
  });

  it('computes next fires, DST edges included', () => {
    const r = cli(
      'next',
      '30 2 * * *',
      '--tz',
      'America/New_York',
      '--after',
      '2026-03-08T06:00:00Z',
      '-n',
      '2',
    );
    expect(r.code).toBe(0);
    expect(r.out).toBe('2026-03-08T07:30:00Z\n2026-03-09T06:30:00Z\n');
    const bad = cli('next', '61 * * * *');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("invalid schedule '61 * * * *'");
    const dead = cli('next', '0 0 1 1 * 2020');
    expect(dead.code).toBe(0);
    expect(dead.out).toBe('');
  });
});

describe('other runtimes', () => {
  it('the Bun standalone binary validates the demo config', () => {
    // Built as `npm run build:binary` builds it (shared with the package test).
    const BINARY = standaloneBinary();
    const r = run(BINARY, ['-c', 'example/demo', '-v']);
    expect(r.err).toContain('Configuration is valid.');
    expect(r.code).toBe(0);
    const v = run(BINARY, ['--version']);
    expect(v.out).toMatch(/^cronstable \d+\.\d+\.\d+\n$/);
  }, 120_000);

  it('Deno runs the bundle', () => {
    const r = run(runtimeBin('deno'), ['run', '-A', BUNDLE, '--version']);
    expect(r.err).not.toContain('error:');
    expect(r.out).toMatch(/^cronstable \d+\.\d+\.\d+\n$/);
    const v = run(runtimeBin('deno'), ['run', '-A', BUNDLE, '-c', 'example/demo', '-v']);
    expect(v.err).toContain('Configuration is valid.');
  }, 120_000);
});
