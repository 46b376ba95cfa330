// The job CLI's pure parts: argument parsing, usage errors, --help, environment checks.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CommandSpec, helpText, parseCommand, usageLine } from '../../src/cli/job-args.ts';
import { JOB_COMMANDS } from '../../src/cli/job-specs.ts';
import {
  dispatchJobVerb,
  isJobStateAction,
  JOB_VERBS,
  type JobVerb,
  runJobVerb,
} from '../../src/cli/jobverbs.ts';
import { resolveRunSecrets, type SecretWarning } from '../../src/jobapi/secrets.ts';

async function run(verb: JobVerb, argv: string[], env: NodeJS.ProcessEnv = {}) {
  let out = '';
  let err = '';
  const code = await runJobVerb(verb, argv, {
    out: (s) => {
      out += typeof s === 'string' ? s : Buffer.from(s).toString('utf8');
    },
    err: (s) => {
      err += s;
    },
    env,
    stdin: async () => new Uint8Array(),
  });
  return { code, out, err };
}

const getSpec = JOB_COMMANDS.state.get!;
const lockSpec = JOB_COMMANDS.lock.run!;

describe('argument parser', () => {
  it('accepts options before or after positionals and --opt=value', () => {
    expect(parseCommand(getSpec, ['--scope', 'x', 'K'])).toEqual({
      kind: 'ok',
      options: { scope: 'x' },
      positionals: { KEY: 'K' },
    });
    expect(parseCommand(getSpec, ['K', '--scope=x'])).toMatchObject({ options: { scope: 'x' } });
    expect(parseCommand(getSpec, ['K', '--global'])).toMatchObject({ options: { global: true } });
    expect(parseCommand(getSpec, ['K', '--scope', ''])).toMatchObject({ options: { scope: '' } });
  });

  it('makes --scope and --global mutually exclusive', () => {
    expect(parseCommand(getSpec, ['K', '--scope', 'x', '--global'])).toEqual({
      kind: 'error',
      message: 'argument --global: not allowed with argument --scope',
    });
    expect(parseCommand(getSpec, ['--global', 'K', '--scope', 'x'])).toEqual({
      kind: 'error',
      message: 'argument --scope: not allowed with argument --global',
    });
  });

  it('reports argparse-style errors', () => {
    expect(parseCommand(getSpec, [])).toEqual({
      kind: 'error',
      message: 'the following arguments are required: KEY',
    });
    expect(parseCommand(getSpec, ['a', 'b'])).toEqual({
      kind: 'error',
      message: 'unrecognized arguments: b',
    });
    expect(parseCommand(getSpec, ['a', '--bogus'])).toEqual({
      kind: 'error',
      message: 'unrecognized arguments: --bogus',
    });
    expect(parseCommand(getSpec, ['a', '--scope'])).toEqual({
      kind: 'error',
      message: 'argument --scope: expected one argument',
    });
    expect(parseCommand(lockSpec, ['n', '--permits', 'two'])).toEqual({
      kind: 'error',
      message: "argument --permits: invalid int value: 'two'",
    });
    expect(parseCommand(lockSpec, ['n', '--timeout', 'soon'])).toEqual({
      kind: 'error',
      message: "argument --timeout: invalid float value: 'soon'",
    });
  });

  it('takes negative numbers as positionals and unique prefixes as options', () => {
    const adv = JOB_COMMANDS.cursor.advance!;
    expect(parseCommand(adv, ['n', '-5'])).toMatchObject({ positionals: { NAME: 'n', VALUE: '-5' } });
    expect(parseCommand(adv, ['n', '-2.5', '--for'])).toMatchObject({
      positionals: { VALUE: '-2.5' },
      options: { force: true },
    });
    expect(parseCommand(lockSpec, ['n', '--perm', '3', '--wa', '--ti', '1.5'])).toMatchObject({
      options: { permits: 3, wait: true, timeout: 1.5 },
    });
    expect(parseCommand(lockSpec, ['n', '--t', '1'])).toMatchObject({ kind: 'error' });
  });

  it('handles short options with attached values', () => {
    const get = JOB_COMMANDS.artifact.get!;
    expect(parseCommand(get, ['a', '-oout.bin'])).toMatchObject({ options: { output: 'out.bin' } });
    expect(parseCommand(get, ['a', '-o', '-'])).toMatchObject({ options: { output: '-' } });
    expect(parseCommand(JOB_COMMANDS.artifact.put!, ['a', '-'])).toMatchObject({
      positionals: { NAME: 'a', FILE: '-' },
    });
  });

  it('requires required options', () => {
    expect(parseCommand(JOB_COMMANDS.xcom.pull!, ['--task', 't'])).toEqual({
      kind: 'error',
      message: 'the following arguments are required: --key',
    });
  });

  it('renders usage and help', () => {
    expect(usageLine(getSpec)).toBe('usage: cronstable state get [-h] [--scope SCOPE | --global] KEY');
    expect(usageLine(JOB_COMMANDS.xcom.pull!)).toBe(
      'usage: cronstable xcom pull [-h] --task T --key K [--map-index I] [-o FILE]',
    );
    const spec: CommandSpec = { prog: 'p', description: 'd', options: [], positionals: [] };
    expect(helpText(spec)).toContain('-h, --help');
  });
});

describe('runJobVerb without an endpoint', () => {
  it('has --help on every verb and every action, outside a job', async () => {
    for (const verb of JOB_VERBS) {
      const actions = Object.keys(JOB_COMMANDS[verb]);
      if (actions[0] !== '') {
        const v = await run(verb, ['--help']);
        expect(v.code).toBe(0);
        expect(v.out).toContain(`usage: cronstable ${verb}`);
      }
      for (const action of actions) {
        const r = await run(verb, action ? [action, '--help'] : ['--help']);
        expect(r.code, `${verb} ${action}`).toBe(0);
        expect(r.out).toContain(`usage: cronstable ${verb}${action ? ` ${action}` : ''}`);
      }
    }
  });

  it('exits 2 with no action', async () => {
    for (const verb of JOB_VERBS.filter((v) => v !== 'idempotent')) {
      const r = await run(verb, []);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`cronstable ${verb}: no action given (see --help)\n`);
    }
    const r = await run('idempotent', []);
    expect(r.code).toBe(2);
    expect(r.err).toContain('the following arguments are required: KEY');
  });

  it('exits 2 on an unknown action', async () => {
    const r = await run('cursor', ['set', 'a', '1']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("invalid choice: 'set' (choose from 'get', 'advance')");
  });

  it('exits 2 on --scope with --global', async () => {
    const r = await run('state', ['get', 'k', '--scope', 'x', '--global']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('usage: cronstable state get');
    expect(r.err).toContain(
      'cronstable state get: error: argument --global: not allowed with argument --scope',
    );
  });

  it('refuses `--` anywhere but after `lock run`', async () => {
    const msg = '`--` is only valid before a `lock run` command';
    for (const [verb, argv] of [
      ['state', ['get', 'k', '--']],
      ['idempotent', ['k', '--', 'echo']],
      ['lock', ['acquire', 'n', '--', 'echo']],
      ['lock', ['--', 'run']],
      ['state', ['--']],
    ] as [JobVerb, string[]][]) {
      const r = await run(verb, argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toBe(`cronstable ${verb}: ${msg}\n`);
    }
  });

  it('exits 1 outside a job', async () => {
    const r = await run('state', ['get', 'k']);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'cronstable state: not running inside a cronstable job: CRONSTABLE_STATE_URL is not set\n',
    );
    const t = await run('secret', ['list'], { CRONSTABLE_STATE_URL: 'http://127.0.0.1:9' });
    expect(t.code).toBe(1);
    expect(t.err).toContain('CRONSTABLE_STATE_TOKEN is not set');
  });

  it('exits 1 for xcom outside a DAG task', async () => {
    const env = { CRONSTABLE_STATE_URL: 'http://127.0.0.1:9', CRONSTABLE_STATE_TOKEN: 't' };
    for (const argv of [['push', '--key', 'k'], ['pull', '--task', 't', '--key', 'k'], ['list']]) {
      const r = await run('xcom', argv, env);
      expect(r.code).toBe(1);
      expect(r.err).toBe('cronstable xcom: not running inside a cronstable DAG task\n');
    }
    const r = await run('xcom', ['push', '--key', 'k'], { ...env, CRONSTABLE_DAG_XCOM_SCOPE: 'dagxcom/d/r' });
    expect(r.code).toBe(1);
    expect(r.err).toContain('CRONSTABLE_DAG_TASKKEY is not set');
  });

  it('exits 1 when the endpoint cannot be reached', async () => {
    const r = await run('state', ['get', 'k'], {
      CRONSTABLE_STATE_URL: 'http://127.0.0.1:1',
      CRONSTABLE_STATE_TOKEN: 't',
    });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^cronstable state: cannot reach the state endpoint at http:\/\/127\.0\.0\.1:1/);
  });

  it('exits 1 for `lock run` without a command', async () => {
    const env = { CRONSTABLE_STATE_URL: 'http://127.0.0.1:1', CRONSTABLE_STATE_TOKEN: 't' };
    for (const argv of [
      ['run', 'n'],
      ['run', 'n', '--'],
    ]) {
      const r = await run('lock', argv, env);
      expect(r.code).toBe(1);
      expect(r.err).toContain('no command given');
    }
  });

  it('routes state admin actions elsewhere', () => {
    expect(isJobStateAction(['get', 'k'])).toBe(true);
    expect(isJobStateAction(['set', 'k', 'v', '--json'])).toBe(true);
    expect(isJobStateAction(['delete', 'k'])).toBe(true);
    expect(isJobStateAction(['keys'])).toBe(true);
    for (const a of ['check', 'gc', 'backup', 'restore', 'migrate', 'migrate-schema'])
      expect(isJobStateAction([a])).toBe(false);
    expect(isJobStateAction(['-c', 'x', 'check'])).toBe(false);
    expect(isJobStateAction([])).toBe(false);
    expect(isJobStateAction(['--help'])).toBe(false);
  });

  it('leaves non-job command lines to the other dispatchers', async () => {
    for (const argv of [
      ['state', 'check'],
      ['state'],
      ['state', '--help'],
      ['-c', 'x', 'state', 'gc'],
      ['next'],
      [],
    ])
      expect(await dispatchJobVerb(argv)).toBeNull();
  });
});

describe('run-scoped secret resolution', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-secrets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves value → fromFile → fromEnvVar and skips unresolvable ones', async () => {
    writeFileSync(join(dir, 'tok'), '  s3cret\n');
    writeFileSync(join(dir, 'blank'), ' \n');
    writeFileSync(join(dir, 'bin'), Buffer.from([0xff, 0x00, 0x01]));
    const spec = (name: string, src: { value?: string; fromFile?: string; fromEnvVar?: string }) => ({
      name,
      value: src.value ?? null,
      fromFile: src.fromFile ?? null,
      fromEnvVar: src.fromEnvVar ?? null,
    });
    const warnings: SecretWarning[] = [];
    const got = await resolveRunSecrets(
      [
        spec('a', { value: 'v', fromFile: join(dir, 'tok') }),
        spec('b', { fromFile: join(dir, 'tok'), fromEnvVar: 'X' }),
        spec('c', { fromEnvVar: 'TOKEN_VAR' }),
        spec('d', { fromEnvVar: 'MISSING' }),
        spec('e', { fromFile: join(dir, 'blank') }),
        spec('f', { fromFile: join(dir, 'bin') }),
        spec('g', { fromFile: join(dir, 'nope') }),
        spec('h', { value: 'first' }),
        spec('h', { value: 'last' }),
      ],
      { TOKEN_VAR: 'from-env', X: 'ignored' },
      warnings,
    );
    expect(got).toEqual({ a: 'v', b: 's3cret', c: 'from-env', h: 'last' });
    expect(warnings.map((w) => w.name)).toEqual(['d', 'e', 'f', 'g']);
  });
});
