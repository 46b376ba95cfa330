// `cronstable --help` lists every verb the dispatcher routes, one line each, and every listed
// verb answers its own --help: the table in src/cli/verbs.ts is the single list both use.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAEMON_USAGE } from '../../src/cli/usage.ts';
import { JOB_VERBS, VERBS } from '../../src/cli/verbs.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'cronstable.mjs');

function cli(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, CRONSTABLE_JOB_API: '', CRONSTABLE_RUN_TOKEN: '' },
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Verb names the dispatcher tests for literally, read from its source. */
function dispatchedLiterals(): string[] {
  const main = readFileSync(join(ROOT, 'src', 'main.ts'), 'utf8');
  const daemon = readFileSync(join(ROOT, 'src', 'cli', 'daemon.ts'), 'utf8');
  const found = [
    ...[...main.matchAll(/argv\[0\] === '([a-z-]+)'/g)].map((m) => m[1]!),
    ...[...daemon.matchAll(/verbArgs\(argv, '([a-z-]+)'\)/g)].map((m) => m[1]!),
  ];
  return found.filter((v) => !v.startsWith('-'));
}

describe('the verb table', () => {
  it('names every verb once', () => {
    const names = VERBS.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('lists every verb the dispatcher routes, and routes every verb it lists', () => {
    const names = new Set(VERBS.map((v) => v.name));
    const dispatched = new Set([...dispatchedLiterals(), ...JOB_VERBS]);
    for (const v of dispatched) expect(names, `dispatched verb '${v}' missing from VERBS`).toContain(v);
    for (const v of names) expect(dispatched, `listed verb '${v}' is not dispatched`).toContain(v);
  });

  it('puts one line per verb in --help', () => {
    const block = DAEMON_USAGE.slice(DAEMON_USAGE.indexOf('\nverbs'));
    const lines = block.split('\n').filter((l) => /^ {2}\S/.test(l));
    expect(lines.map((l) => l.trim().split(/\s+/)[0])).toEqual(VERBS.map((v) => v.name));
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(120);
  });
});

describe('the built binary', () => {
  it('prints the verb list on --help', () => {
    const r = cli(['--help']);
    expect(r.code).toBe(0);
    for (const v of VERBS)
      expect(r.out).toMatch(new RegExp(`^ {2}${v.name} +${v.summary.slice(0, 20)}`, 'm'));
  });

  it.each(VERBS.map((v) => v.name))('answers `%s --help` with its own usage', (verb) => {
    const r = cli([verb, '--help']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^usage: cronstable .*\\b${verb}\\b`, 'm'));
    expect(r.out).not.toContain('A distributed, fault-tolerant cron daemon.');
  });

  it('refuses a word that is not a verb with exit 2', () => {
    const r = cli(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("'frobnicate'");
  });
});

describe('the README', () => {
  it("names every verb in 'The command line'", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('## The command line');
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    for (const v of VERBS) expect(section, v.name).toMatch(new RegExp(`\\b${v.name}\\b`));
  });
});
