import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { configMessageOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

function load(files: Record<string, string>, entry = 'conf.yaml') {
  const dir = writeTree(files);
  return loadConfig(entry ? join(dir, entry) : dir, { cwd: dir, euid: 0, env: {} });
}
/** The refusal of a lone `conf.yaml`. */
const confRefusal = (yaml: string) => configMessageOf(load, { 'conf.yaml': yaml });
const J = (name: string, schedule = '    schedule: "* * * * *"\n') =>
  `  - name: ${name}\n    command: "true"\n${schedule}`;

describe('spec 09 §7 validation tightening', () => {
  it('v31: a job name repeated across directory files fails the load, names sorted', () => {
    const msg = configMessageOf(
      load,
      { 'a.yaml': `jobs:\n${J('x')}${J('y')}`, 'b.yml': `jobs:\n${J('y')}${J('x')}` },
      '',
    );
    expect(msg).toContain(
      'duplicate job name(s): x, y; the scheduler tracks jobs by name, so all but the last definition of a name would silently never run. Rename the duplicates.',
    );
    expect(msg).toMatch(/b\.yml:\d+:\d+: duplicate job name/);
    // A job named like a DAG stays legal.
    const cfg = load({
      'conf.yaml': `state:\n  path: st.db\njobs:\n${J('d')}dags:\n  - name: d\n    tasks:\n      - id: t\n        command: "true"\n`,
    });
    expect(cfg.jobs.map((j) => j.name)).toEqual(['d']);
  });

  it('v32: an object schedule field must be one non-empty token', () => {
    const blank = confRefusal(`jobs:\n${J('J', '    schedule:\n      second: "0"\n      minute: ""\n')}`);
    expect(blank).toContain(
      "schedule.minute: must be a single non-empty cron field with no whitespace, got '' (a blank value would drop this column and an embedded space would add one, silently shifting every later field; omit the key entirely for its default)",
    );
    expect(blank).toMatch(/conf\.yaml:\d+:\d+: /);
    const spaced = confRefusal(`jobs:\n${J('J', '    schedule:\n      minute: "0 5"\n')}`);
    expect(spaced).toContain(
      "schedule.minute: must be a single non-empty cron field with no whitespace, got '0 5'",
    );
    const nbsp = confRefusal(`jobs:\n${J('J', '    schedule:\n      hour: "4\u00a0"\n')}`);
    expect(nbsp).toContain('schedule.hour: must be a single non-empty cron field');
    const dag = confRefusal(
      'dags:\n  - name: d\n    schedule:\n      minute: " 1"\n    tasks:\n      - id: t\n        command: "true"\n',
    );
    expect(dag).toContain(
      "schedule.minute: must be a single non-empty cron field with no whitespace, got ' 1'",
    );
    expect(
      load({ 'conf.yaml': `jobs:\n${J('J', '    schedule:\n      minute: "5"\n')}` }).jobs[0]!.scheduleText,
    ).toBe('5 * * * *');
  });

  it('v33: control characters in a crontab line are refused; TAB, edge whitespace and comments are not', () => {
    const msg = configMessageOf(load, { 'x.crontab': '* * * * * echo a\u0000b\n' }, 'x.crontab');
    expect(msg).toContain(
      "x.crontab:1:1: control character '\\x00' in a crontab line: it cannot be part of a schedule, command or environment value (a NUL is unspawnable, and the others read as line breaks in some tools but not others). Remove it, or move this job to a YAML config.",
    );
    const cfg = load(
      {
        'x.crontab':
          '* * * * * echo ab\u000c\n*\t* * * * echo a\tb\n# a\u0000b\n* * * * * echo c\u001f\u0085\n',
      },
      'x.crontab',
    );
    expect(cfg.jobs.map((j) => j.command)).toEqual(['echo ab', 'echo a\tb', 'echo c']);
    for (const [c, repr] of [
      ['\u001b', "'\\x1b'"],
      ['\u007f', "'\\x7f'"],
      ['\u0085', "'\\x85'"],
      ['\u2028', "'\\u2028'"],
    ])
      expect(configMessageOf(load, { 'x.crontab': `X=a${c}b\n` }, 'x.crontab')).toContain(
        `control character ${repr} in a crontab line`,
      );
  });

  it('v34 (spec 09 §7.4, spec 10 §3.1): web.tls and https:// listeners must agree', () => {
    const tlsOnly = confRefusal(
      'web:\n  listen:\n    - http://127.0.0.1:8080\n  tls:\n    cert: c.pem\n    key: k.pem\n',
    );
    expect(tlsOnly).toContain(
      'web.tls is configured but no web.listen address uses https:// , so the TLS material would be ignored and the API served in cleartext; use an https:// listen address or remove web.tls',
    );
    const httpsOnly = confRefusal('web:\n  listen:\n    - https://127.0.0.1:8443\n');
    expect(httpsOnly).toContain(
      'web.listen has https:// address(es) https://127.0.0.1:8443 but no web.tls.cert / web.tls.key, so those listeners have no certificate to serve and would be skipped at startup; set web.tls.cert and web.tls.key, or use http:// addresses',
    );
    const half = confRefusal(
      'web:\n  listen:\n    - https://127.0.0.1:8443\n  tls:\n    cert: c.pem\n    key: ""\n',
    );
    expect(half).toContain('web.tls.cert and web.tls.key must be set together');
    expect(half).toContain('got cert=True, key=False');
    // Spec 10 v34: `cert` alone (no key at all) and `clientCa` alone get their own §3.1 texts.
    const certOnly = confRefusal('web:\n  listen:\n    - https://127.0.0.1:8443\n  tls:\n    cert: c.pem\n');
    expect(certOnly).toContain(
      'web.tls.cert and web.tls.key must be set together (a server certificate needs its private key); got cert=True, key=False',
    );
    const caOnly = confRefusal(
      'web:\n  listen:\n    - https://127.0.0.1:8443\n  tls:\n    clientCa: ca.pem\n',
    );
    expect(caOnly).toContain(
      'web.tls.clientCa is set but web.tls.cert and web.tls.key are not; a listener cannot require client certificates without serving one of its own',
    );
    // clientCa over an http-only list is TLS material that would be ignored too.
    expect(
      confRefusal(
        'web:\n  listen:\n    - http://127.0.0.1:8080\n  tls:\n    cert: c.pem\n    key: k.pem\n    clientCa: ca.pem\n',
      ),
    ).toContain('web.tls is configured but no web.listen address uses https://');
    const ok = load({
      'conf.yaml': 'web:\n  listen:\n    - https://127.0.0.1:8443\n  tls:\n    cert: c.pem\n    key: k.pem\n',
    });
    expect(ok.web?.listen).toEqual(['https://127.0.0.1:8443']);
  });
});

describe('spec 09 §7.5 directory suffixes', () => {
  it('v35: YAML suffixes load in any case; _ names stay skipped', () => {
    const cfg = load(
      {
        'JOBS.YAML': `jobs:\n${J('u')}`,
        'more.Yml': `jobs:\n${J('w')}`,
        '_X.YML': `jobs:\n${J('v')}`,
        'Legacy.CRON': '* * * * * echo legacy\n',
      },
      '',
    );
    expect(cfg.jobs.map((j) => j.name)).toEqual(['u', 'Legacy.CRON:1', 'w']);
  });
});
