import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobSetId } from '../../src/cluster/jobset.ts';
import { type Env, expandText } from '../../src/config/interpolate.ts';
import { loadConfig } from '../../src/config/load.ts';
import { configMessageOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

function loadIn(files: Record<string, string>, env: Env, entry = 'conf.yaml') {
  const dir = writeTree(files);
  return loadConfig(join(dir, entry), { cwd: dir, euid: 0, env });
}
const J = (extra = '', name = 'J') =>
  `jobs:\n  - name: ${name}\n    command: "true"\n    schedule: "* * * * *"\n${extra}`;
const x = (s: string, env: Env) => expandText(s, env).text;

describe('spec 09 §1 interpolation', () => {
  it('v1: key and value expand, $$ is a dollar, a fallback fills an unset name', () => {
    const cfg = loadIn(
      { 'conf.yaml': J('    environment:\n      - key: K_${A}\n        value: "${A}-$$-${U:-dflt}"\n') },
      { A: 'aa' },
    );
    expect(cfg.jobs[0]!.effectiveEnvironment).toEqual([{ key: 'K_aa', value: 'aa-$-dflt' }]);
  });

  it('v2: the syntax table and its pinned oddities', () => {
    const env = { A: 'x', E: '' };
    expect(
      ['$${A}', '${E}', '${E:-d}', '${A-d}', '${A:-${B}}', '${1A}', '$A', '${A'].map((s) => x(s, env)),
    ).toEqual(['${A}', '', 'd', '${A-d}', 'x}', '${1A}', '$A', '${A']);
    expect(x('${A}:-z', env)).toBe('x:-z');
    expect(x('${A:-${B}}', {})).toBe('${B}');
    expect(x('$$$', env)).toBe('$$');
    for (const verbatim of ['$', '${ A}', '${Ä}', '${A:=d}', '${A }', '${A:-d', '${}'])
      expect(expandText(verbatim, {})).toEqual({ text: verbatim, unset: [] });
    expect(x('${A:-}', {})).toBe('');
    expect(x('${X:-fallback}', { X: '' })).toBe('fallback');
    expect(x('${X:-fallback}', { X: 'set' })).toBe('set');
  });

  it('v2: the scan stays linear on a value full of ${x:- with no closing brace', () => {
    const s = '${x:-'.repeat(200_000);
    expect(x(s, {})).toBe(s);
    expect(x(`${s}}`, {})).toBe(s.slice(5));
  });

  it('v3: an unset reference names the file, the value path and the variable, at line:col', () => {
    const msg = configMessageOf(
      loadIn,
      { 'p.yaml': J('    timezone: ${NOPE}\n'), 'conf.yaml': 'include:\n  - p.yaml\n' },
      {},
    );
    expect(msg).toContain('p.yaml:5:5: ');
    expect(msg).toContain(
      'config value jobs[0].timezone references environment variable ${NOPE}, which is not set; export it, or write ${NOPE:-default} to supply a fallback',
    );
  });

  it('v3 (do better): every unset reference of a load is reported', () => {
    const msg = configMessageOf(
      loadIn,
      {
        'conf.yaml': `${J('    timezone: ${N1}\n    environment:\n      - key: K\n        value: ${N2}\n')}web:\n  listen:\n    - 127.0.0.1:\${N3}\n`,
      },
      {},
    );
    for (const [name, where] of [
      ['N1', 'jobs[0].timezone'],
      ['N2', 'jobs[0].environment[0].value'],
      ['N3', 'web.listen[0]'],
    ])
      expect(msg).toContain(
        `config value ${where} references environment variable \${${name}}, which is not set`,
      );
  });

  it('v4: command, shell, shell reporters and logging keep every $', () => {
    const cfg = loadIn(
      {
        'conf.yaml':
          'jobs:\n  - name: J\n    command: echo ${N1} $$\n    shell: ${N2}\n    schedule: "* * * * *"\n' +
          '    onFailure:\n      report:\n        shell:\n          command: echo ${N3}\n' +
          'logging:\n  version: 1\n  formatters:\n    f:\n      format: "${asctime}"\n      style: "$"\n',
      },
      {},
    );
    expect(cfg.jobs[0]!.command).toBe('echo ${N1} $$');
    expect(cfg.jobs[0]!.shell).toBe('${N2}');
    expect(cfg.jobs[0]!.onFailure.report.shell?.command).toBe('echo ${N3}');
    expect(JSON.stringify(cfg.logging)).toContain('"format":"${asctime}"');
  });

  it('v5: webhook URL and header values expand, header names do not', () => {
    const cfg = loadIn(
      {
        'conf.yaml': J(
          '    onFailure:\n      report:\n        webhook:\n          url:\n            value: http://h/${A}\n          headers:\n            X-${A}: v${A}\n            command: c${A}\n',
        ),
      },
      { A: 'aa' },
    );
    const hook = cfg.jobs[0]!.onFailure.report.webhook!;
    expect(hook.url).toMatchObject({ value: 'http://h/aa' });
    expect(hook.headers).toEqual({ 'X-${A}': 'vaa', command: 'caa' });
  });

  it('v6: an include path may be built from variables', () => {
    const files = {
      'conf.yaml': 'include:\n  - inc/${ENVNAME:-prod}.yaml\n',
      'inc/prod.yaml': J('', 'from-prod'),
    };
    expect(loadIn(files, {}).jobs.map((j) => j.name)).toEqual(['from-prod']);
    const msg = configMessageOf(loadIn, files, { ENVNAME: 'dev' });
    expect(msg).toContain('inc/dev.yaml');
  });

  it('v7: crontab lines and env_file contents are never expanded', () => {
    const cfg = loadIn(
      {
        'x.crontab': '* * * * * echo ${UNSET} $$\n',
        'vars.env': 'F=${A}\n',
        'conf.yaml': `${J('    env_file: vars.env\n')}include:\n  - x.crontab\n`,
      },
      { A: 'aa' },
    );
    expect(cfg.jobs.map((j) => j.command)).toContain('echo ${UNSET} $$');
    expect(cfg.jobs.find((j) => j.name === 'J')!.effectiveEnvironment).toContainEqual({
      key: 'F',
      value: '${A}',
    });
  });

  it('v8: a variable in an integer position is a schema error, not an interpolation error', () => {
    const msg = configMessageOf(loadIn, { 'conf.yaml': J('    saveLimit: ${N:-5}\n') }, {});
    expect(msg).not.toContain('environment variable');
    expect(msg).toMatch(/saveLimit/);
    expect(msg).toMatch(/integer/i);
  });

  it('v9: the job-set id is taken over the expanded config', () => {
    const id = (yaml: string, REGION: string) => jobSetId(loadIn({ 'conf.yaml': yaml }, { REGION }).jobs);
    const named = J('', 'r-${REGION}');
    expect(id(named, 'eu')).not.toBe(id(named, 'us'));
    // An environment value is outside the fingerprint (workingDirectory, part B, is the spec's example).
    const valued = J('    environment:\n      - key: R\n        value: ${REGION}\n');
    expect(id(valued, 'eu')).toBe(id(valued, 'us'));
  });

  it('user: ${RUNAS} takes the text branch of the union', () => {
    const msg = configMessageOf(loadIn, { 'conf.yaml': J('    user: ${RUNAS}\n') }, { RUNAS: '0' });
    expect(msg).toContain("User not found: '0'");
  });

  it('HOSTNAME is defined before any config is read', () => {
    const cfg = loadConfig(join(writeTree({ 'c.yaml': J('', 'on-${HOSTNAME}') }), 'c.yaml'), { euid: 0 });
    expect(cfg.jobs[0]!.name).toBe(`on-${process.env.HOSTNAME}`);
  });
});
