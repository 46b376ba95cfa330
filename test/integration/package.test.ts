// `npm run package` (spec 10 §7.1, §7.2, §7.4; issue 34): the .deb and .rpm of the standalone binary,
// built for real with dpkg-deb and rpmbuild, then read back with dpkg-deb and rpm: file lists, modes,
// owners, conffiles, dependencies and scripts; the unit through systemd-analyze verify; the .deb
// unpacked into a scratch root whose binary runs; the package scripts run (unshare: a private /run
// with and without systemd) against recording stand-ins for the commands that would change the host.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { glibcFloor } from '../../scripts/package.mjs';
import { ROOT } from '../helpers/built.ts';
import { standaloneBinary } from '../helpers/standalone-binary.ts';

const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
const DEB = `cronstable_${VERSION}_amd64.deb`;
const RPM = `cronstable-${VERSION}-1.x86_64.rpm`;

function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}) {
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 240_000,
    env: opts.env ?? process.env,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
  });
  return { code: r.status, out: r.stdout ?? '', err: r.stderr ?? '' };
}

let dir = '';
let out = '';
let floor = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cronstable-package-'));
  out = join(dir, 'out');
  const binary = standaloneBinary();
  floor = glibcFloor(run('readelf', ['-V', '-W', binary]).out) ?? '';
  const r = run(process.execPath, [join(ROOT, 'scripts', 'package.mjs'), '--binary', binary, '--out', out]);
  expect(r.code, r.err).toBe(0);
  expect(r.out.trim().split('\n')).toEqual([join(out, DEB), join(out, RPM)]);
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the glibc floor', () => {
  it('is the newest GLIBC symbol version the binary names', () => {
    expect(
      glibcFloor('  0x0010: Name: GLIBC_2.2.5  Flags: none\n  Name: GLIBC_2.17\n Name: GLIBC_2.14'),
    ).toBe('2.17');
    expect(glibcFloor('Name: GLIBC_2.3.4\nName: GLIBC_2.3')).toBe('2.3.4');
    expect(glibcFloor('no versions')).toBeNull();
    expect(floor).toMatch(/^2\.\d+(\.\d+)?$/);
  });
});

describe('the .deb', () => {
  it('carries the binary, the unit, the starter config as a conffile and the state directory', () => {
    const list = run('dpkg-deb', ['-c', join(out, DEB)]).out;
    const rows = list
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/))
      .map((f) => `${f[0]} ${f[1]} ${f[5]}`);
    expect(rows).toEqual([
      'drwxr-xr-x root/root ./',
      'drwxr-xr-x root/root ./etc/',
      'drwxr-xr-x root/root ./etc/cronstable.d/',
      '-rw-r--r-- root/root ./etc/cronstable.d/cronstable.yaml',
      'drwxr-xr-x root/root ./usr/',
      'drwxr-xr-x root/root ./usr/bin/',
      '-rwxr-xr-x root/root ./usr/bin/cronstable',
      'drwxr-xr-x root/root ./usr/lib/',
      'drwxr-xr-x root/root ./usr/lib/systemd/',
      'drwxr-xr-x root/root ./usr/lib/systemd/system/',
      '-rw-r--r-- root/root ./usr/lib/systemd/system/cronstable.service',
      'drwxr-xr-x root/root ./var/',
      'drwxr-xr-x root/root ./var/lib/',
      'drwxr-x--- root/root ./var/lib/cronstable/',
    ]);
    const field = (name: string) => run('dpkg-deb', ['-f', join(out, DEB), name]).out.trim();
    expect(field('Package')).toBe('cronstable');
    expect(field('Version')).toBe(VERSION);
    expect(field('Architecture')).toBe('amd64');
    expect(field('Section')).toBe('admin');
    expect(field('Depends')).toBe(`libc6 (>= ${floor})`);
    const control = join(dir, 'control');
    expect(run('dpkg-deb', ['-e', join(out, DEB), control]).code).toBe(0);
    expect(readFileSync(join(control, 'conffiles'), 'utf8')).toBe('/etc/cronstable.d/cronstable.yaml\n');
  });

  it('unpacks into a root whose binary runs and validates the shipped config', () => {
    const root = join(dir, 'root');
    expect(run('dpkg-deb', ['-x', join(out, DEB), root]).code).toBe(0);
    const bin = join(root, 'usr/bin/cronstable');
    const v = run(bin, ['--version']);
    expect(v.out).toBe(`cronstable ${VERSION}\n`);
    const check = run(bin, ['-c', join(root, 'etc/cronstable.d'), '-v']);
    expect(check.err).toContain('Configuration is valid.');
    expect(check.code).toBe(0);
    // The starter keeps state on the service's StateDirectory and schedules nothing.
    const starter = readFileSync(join(root, 'etc/cronstable.d/cronstable.yaml'), 'utf8');
    expect(starter).toMatch(/^state:\n {2}path: \/var\/lib\/cronstable$/m);
    expect(starter).toMatch(/^# web:\n# {3}listen:\n# {5}- http:\/\/127\.0\.0\.1:8080$/m);
    expect(starter).not.toMatch(/^jobs:/m);
  });

  it('installs a unit systemd-analyze verify accepts, as spec 10 §7.1 writes it', () => {
    const root = join(dir, 'root');
    const unit = readFileSync(join(root, 'usr/lib/systemd/system/cronstable.service'), 'utf8');
    const directives = Object.fromEntries(
      unit
        .split('\n')
        .filter((l) => /^[A-Za-z]+=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    expect(directives).toEqual({
      Description: 'cronstable job scheduler',
      After: 'network-online.target',
      Wants: 'network-online.target',
      Type: 'simple',
      User: 'cronstable',
      Group: 'cronstable',
      EnvironmentFile: '-/etc/default/cronstable',
      ExecStart: '/usr/bin/cronstable -c /etc/cronstable.d',
      ExecReload: '/bin/kill -HUP $MAINPID',
      Restart: 'on-failure',
      RestartSec: '5s',
      KillMode: 'mixed',
      TimeoutStopSec: '90',
      StateDirectory: 'cronstable',
      StateDirectoryMode: '0750',
      WantedBy: 'multi-user.target',
    });
    // verify checks that ExecStart exists: the same unit, pointed at the unpacked binary.
    const units = join(dir, 'units');
    mkdirSync(units, { recursive: true });
    writeFileSync(
      join(units, 'cronstable.service'),
      unit.replace('/usr/bin/cronstable', join(root, 'usr/bin/cronstable')),
    );
    const v = run('systemd-analyze', ['verify', join(units, 'cronstable.service')]);
    expect(v.err + v.out).toBe('');
    expect(v.code).toBe(0);
  });
});

describe('the .rpm', () => {
  it('carries the same files, the config as noreplace, the state directory owned by the service user', () => {
    const dump = run('rpm', ['-qp', '--dump', join(out, RPM)]).out;
    const rows = dump
      .trim()
      .split('\n')
      .map((l) => l.split(' '))
      .map((f) => `${f[0]} ${f[4]} ${f[5]} ${f[6]} config=${f[7]}`);
    expect(rows).toEqual([
      '/etc/cronstable.d 040755 root root config=0',
      '/etc/cronstable.d/cronstable.yaml 0100644 root root config=1',
      '/usr/bin/cronstable 0100755 root root config=0',
      '/usr/lib/systemd/system/cronstable.service 0100644 root root config=0',
      '/var/lib/cronstable 040750 cronstable cronstable config=0',
    ]);
    const q = (fmt: string) => run('rpm', ['-qp', '--qf', fmt, join(out, RPM)]).out;
    expect(q('%{NAME} %{VERSION} %{ARCH} %{LICENSE}')).toBe(`cronstable ${VERSION} x86_64 MIT`);
    expect(run('rpm', ['-qpR', join(out, RPM)]).out).toContain(`glibc >= ${floor}`);
    const configs = run('rpm', ['-qp', '--qf', '[%{FILENAMES} %{FILEFLAGS:fflags}\n]', join(out, RPM)]).out;
    expect(configs).toContain('/etc/cronstable.d/cronstable.yaml cn');
    // The same binary as the .deb's, and the unit with the secrets file at the RPM family's place
    // (rpm --dump carries each file's SHA-256: nothing to unpack).
    const digest = Object.fromEntries(
      dump
        .trim()
        .split('\n')
        .map((l) => [l.split(' ')[0], l.split(' ')[3]]),
    );
    const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');
    const root = join(dir, 'root');
    expect(digest['/usr/bin/cronstable']).toBe(sha(readFileSync(join(root, 'usr/bin/cronstable'))));
    const debUnit = readFileSync(join(root, 'usr/lib/systemd/system/cronstable.service'), 'utf8');
    expect(debUnit).toContain('EnvironmentFile=-/etc/default/cronstable\n');
    expect(digest['/usr/lib/systemd/system/cronstable.service']).toBe(
      sha(debUnit.replace('-/etc/default/cronstable', '-/etc/sysconfig/cronstable')),
    );
    expect(digest['/etc/cronstable.d/cronstable.yaml']).toBe(
      sha(readFileSync(join(root, 'etc/cronstable.d/cronstable.yaml'))),
    );
  });
});

/**
 * Runs a package script with stand-ins for the commands that would change this host (useradd,
 * systemctl, ...), each appending its argv to a log and exiting `status`; `systemd` decides whether
 * /run/systemd/system exists (a private /run, through unshare).
 */
function runScript(
  text: string,
  args: string[],
  opts: { systemd: boolean; known?: boolean; status?: number },
) {
  const work = mkdtempSync(join(dir, 'script-'));
  const bin = join(work, 'bin');
  mkdirSync(bin);
  const log = join(work, 'calls');
  for (const cmd of ['getent', 'groupadd', 'useradd', 'systemctl', 'chown']) {
    const status = cmd === 'getent' ? (opts.known ? 0 : 2) : (opts.status ?? 0);
    writeFileSync(join(bin, cmd), `#!/bin/sh\necho "${cmd} $*" >> ${log}\nexit ${status}\n`);
    chmodSync(join(bin, cmd), 0o755);
  }
  writeFileSync(join(work, 'script'), text);
  const setup = opts.systemd
    ? 'mount -t tmpfs none /run && mkdir -p /run/systemd/system'
    : 'mount -t tmpfs none /run';
  const r = run(
    'unshare',
    ['-m', 'sh', '-c', `${setup} && exec sh "$0" "$@"`, join(work, 'script'), ...args],
    {
      env: { PATH: `${bin}:/usr/bin:/bin` },
    },
  );
  let calls: string[] = [];
  try {
    calls = readFileSync(log, 'utf8').trim().split('\n');
  } catch {
    calls = [];
  }
  return { code: r.code, err: r.err, calls };
}

const USER_CALLS = [
  'getent group cronstable',
  'groupadd --system cronstable',
  'getent passwd cronstable',
  'useradd --system --gid cronstable --home-dir /var/lib/cronstable --no-create-home --shell /usr/sbin/nologin --comment cronstable job scheduler cronstable',
];

describe('the package scripts (spec 10 §7.2)', () => {
  const deb: Record<string, string> = {};
  let rpm: Record<string, string> = {};
  beforeAll(() => {
    const control = join(dir, 'control');
    for (const name of ['postinst', 'prerm', 'postrm']) deb[name] = readFileSync(join(control, name), 'utf8');
    const text = run('rpm', ['-qp', '--scripts', join(out, RPM)]).out;
    rpm = Object.fromEntries(
      [
        ...text.matchAll(/^(\w+) scriptlet \(using \/bin\/sh\):\n([\s\S]*?)(?=^\w+ scriptlet|(?![\s\S]))/gm),
      ].map((m) => [m[1]!, m[2]!]),
    );
    expect(Object.keys(rpm)).toEqual(['preinstall', 'postinstall', 'preuninstall', 'postuninstall']);
  });

  it('deb install and upgrade: create the user, reload units, restart only a running service; never enable', () => {
    for (const args of [['configure'], ['configure', '0.0.9']]) {
      const r = runScript(deb.postinst!, args, { systemd: true });
      expect(r.code).toBe(0);
      expect(r.calls).toEqual([
        ...USER_CALLS,
        'chown cronstable:cronstable /var/lib/cronstable',
        'systemctl daemon-reload',
        'systemctl try-restart cronstable.service',
      ]);
    }
    // An existing user is kept as it is; without systemd no systemctl is run.
    const again = runScript(deb.postinst!, ['configure', '0.1.0'], { systemd: false, known: true });
    expect(again.calls).toEqual([
      'getent group cronstable',
      'getent passwd cronstable',
      'chown cronstable:cronstable /var/lib/cronstable',
    ]);
  });

  it('deb removal disables and stops the service; an upgrade leaves it running; failures never fail dpkg', () => {
    expect(runScript(deb.prerm!, ['remove'], { systemd: true }).calls).toEqual([
      'systemctl --no-reload disable --now cronstable.service',
    ]);
    expect(runScript(deb.prerm!, ['upgrade', '0.2.0'], { systemd: true }).calls).toEqual([]);
    expect(runScript(deb.prerm!, ['remove'], { systemd: false }).calls).toEqual([]);
    expect(runScript(deb.postrm!, ['remove'], { systemd: true }).calls).toEqual(['systemctl daemon-reload']);
    const failing = runScript(deb.postinst!, ['configure'], { systemd: true, status: 1 });
    expect(failing.code).toBe(0);
    expect(failing.calls).toHaveLength(USER_CALLS.length + 3);
  });

  it('rpm: the user before the files, reload and try-restart after, disable only on the last removal', () => {
    expect(runScript(rpm.preinstall!, ['1'], { systemd: true }).calls).toEqual(USER_CALLS);
    expect(runScript(rpm.postinstall!, ['2'], { systemd: true }).calls).toEqual([
      'systemctl daemon-reload',
      'systemctl try-restart cronstable.service',
    ]);
    expect(runScript(rpm.preuninstall!, ['0'], { systemd: true }).calls).toEqual([
      'systemctl --no-reload disable --now cronstable.service',
    ]);
    expect(runScript(rpm.preuninstall!, ['1'], { systemd: true }).calls).toEqual([]);
    expect(runScript(rpm.postuninstall!, ['0'], { systemd: true }).calls).toEqual([
      'systemctl daemon-reload',
    ]);
    expect(runScript(rpm.postinstall!, ['1'], { systemd: false }).calls).toEqual([]);
  });
});
