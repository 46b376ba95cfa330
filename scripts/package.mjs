// `npm run package`: the Debian and RPM packages of the standalone binary (spec 10 §7.1, §7.2, §7.4),
// for this machine's architecture. Usage:
//   node scripts/package.mjs [--binary PATH] [--out DIR] [--only deb|rpm]
// Without --binary it builds the binary first (scripts/build-binary.mjs). Needs dpkg-deb, rpmbuild
// (Debian's `rpm` package) and readelf (binutils), which measures the binary's glibc floor.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
const PACKAGING = join(ROOT, 'packaging');

/** Node's architecture names as Debian and RPM spell them. */
const ARCHES = {
  x64: { deb: 'amd64', rpm: 'x86_64' },
  arm64: { deb: 'arm64', rpm: 'aarch64' },
  ia32: { deb: 'i386', rpm: 'i686' },
  arm: { deb: 'armhf', rpm: 'armv7hl' },
  ppc64: { deb: 'ppc64el', rpm: 'ppc64le' },
  s390x: { deb: 's390x', rpm: 's390x' },
  riscv64: { deb: 'riscv64', rpm: 'riscv64' },
};

function fail(message) {
  process.stderr.write(`package: ${message}\n`);
  process.exit(1);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  if (r.error?.code === 'ENOENT')
    fail(`${cmd} is not installed (${TOOLS[cmd] ?? 'see scripts/package.mjs'})`);
  if (r.status !== 0) fail(`${cmd} ${args.join(' ')} failed (exit ${r.status}):\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** run(), without holding the thread: the .deb and the .rpm compress at the same time. */
function runAsync(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (c) => {
      text += c;
    });
    child.stderr.on('data', (c) => {
      text += c;
    });
    child.on('error', (e) =>
      fail(
        e.code === 'ENOENT'
          ? `${cmd} is not installed (${TOOLS[cmd] ?? 'see scripts/package.mjs'})`
          : e.message,
      ),
    );
    child.on('close', (code) => {
      if (code !== 0) fail(`${cmd} ${args.join(' ')} failed (exit ${code}):\n${text}`);
      resolve(text);
    });
  });
}

const TOOLS = {
  'dpkg-deb': 'apt-get install dpkg',
  rpmbuild: 'apt-get install rpm',
  readelf: 'apt-get install binutils',
};

/** The newest GLIBC_x.y symbol version the binary needs: the package's libc floor. */
export function glibcFloor(readelfOutput) {
  const versions = [...readelfOutput.matchAll(/GLIBC_(\d+)\.(\d+)(?:\.(\d+))?/g)].map((m) => [
    Number(m[1]),
    Number(m[2]),
    Number(m[3] ?? 0),
  ]);
  if (versions.length === 0) return null;
  versions.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  const [major, minor, patch] = versions.at(-1);
  return patch ? `${major}.${minor}.${patch}` : `${major}.${minor}`;
}

/** The package scripts' shared functions, inlined: an installed script sources nothing. */
function script(name, body) {
  const common = readFileSync(join(PACKAGING, 'common.sh'), 'utf8');
  return `#!/bin/sh\n# cronstable ${name} (spec 10 §7.2)\n${common}\n${body}exit 0\n`;
}

const DEB_SCRIPTS = {
  postinst: `case "$1" in
  configure)
    cronstable_user
    chown cronstable:cronstable /var/lib/cronstable 2>/dev/null || true
    cronstable_systemctl daemon-reload
    cronstable_systemctl try-restart cronstable.service
    ;;
esac
`,
  // dpkg runs the old prerm with "upgrade" on an upgrade: only a real removal stops the service.
  prerm: `case "$1" in
  remove)
    cronstable_systemctl --no-reload disable --now cronstable.service
    ;;
esac
`,
  postrm: `cronstable_systemctl daemon-reload
`,
};

// rpm passes the number of versions left installed: 0 in %preun means a real removal.
const RPM_SCRIPTS = {
  pre: 'cronstable_user\n',
  post: 'cronstable_systemctl daemon-reload\ncronstable_systemctl try-restart cronstable.service\n',
  preun: 'if [ "$1" = 0 ]; then\n  cronstable_systemctl --no-reload disable --now cronstable.service\nfi\n',
  postun: 'cronstable_systemctl daemon-reload\n',
};

/** The installed tree: binary, unit, starter config, state directory. */
function stage(dir, binary, environmentFile) {
  // The archive's root entry takes the staging directory's mode (mkdtemp makes it 0700).
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  const put = (path, text, mode) => {
    const file = join(dir, path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
    chmodSync(file, mode);
  };
  mkdirSync(join(dir, 'usr/bin'), { recursive: true });
  cpSync(binary, join(dir, 'usr/bin/cronstable'));
  chmodSync(join(dir, 'usr/bin/cronstable'), 0o755);
  const unit = readFileSync(join(PACKAGING, 'cronstable.service.in'), 'utf8').replace(
    '@ENVIRONMENT_FILE@',
    environmentFile,
  );
  put('usr/lib/systemd/system/cronstable.service', unit, 0o644);
  put('etc/cronstable.d/cronstable.yaml', readFileSync(join(PACKAGING, 'cronstable.yaml'), 'utf8'), 0o644);
  mkdirSync(join(dir, 'var/lib/cronstable'), { recursive: true });
  chmodSync(join(dir, 'var/lib/cronstable'), 0o750);
}

const DESCRIPTION = 'distributed, fault-tolerant cron daemon and small workflow engine';

async function buildDeb({ binary, version, arch, floor, out }) {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-deb-'));
  try {
    stage(dir, binary, '/etc/default/cronstable');
    mkdirSync(join(dir, 'DEBIAN'));
    const control = [
      'Package: cronstable',
      `Version: ${version}`,
      `Architecture: ${arch.deb}`,
      'Section: admin',
      'Priority: optional',
      'Maintainer: cronstable maintainers <maintainers@cronstable.invalid>',
      `Depends: libc6 (>= ${floor})`,
      'License: MIT',
      `Description: ${DESCRIPTION}`,
      ' A YAML job file, cron semantics down to the second, retries and alerting, durable',
      ' state, DAGs with approvals, leader election, a live dashboard and Prometheus metrics.',
      '',
    ].join('\n');
    writeFileSync(join(dir, 'DEBIAN/control'), control);
    writeFileSync(join(dir, 'DEBIAN/conffiles'), '/etc/cronstable.d/cronstable.yaml\n');
    for (const [name, body] of Object.entries(DEB_SCRIPTS)) {
      writeFileSync(join(dir, 'DEBIAN', name), script(name, body));
      chmodSync(join(dir, 'DEBIAN', name), 0o755);
    }
    const file = join(out, `cronstable_${version}_${arch.deb}.deb`);
    // gzip: every dpkg can read it, and it is several times faster than xz on a 100 MB binary.
    await runAsync('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z6', '--build', dir, file]);
    return file;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function buildRpm({ binary, version, arch, floor, out }) {
  const top = mkdtempSync(join(tmpdir(), 'cronstable-rpm-'));
  try {
    const tree = join(top, 'tree');
    stage(tree, binary, '/etc/sysconfig/cronstable');
    const scriptlets = Object.entries(RPM_SCRIPTS)
      .map(([name, body]) => `%${name}\n${script(name, body).replace(/^#!\/bin\/sh\n/, '')}`)
      .join('\n');
    const spec = `Name: cronstable
Version: ${version}
Release: 1
Summary: ${DESCRIPTION}
License: MIT
BuildArch: ${arch.rpm}
Requires: glibc >= ${floor}
AutoReqProv: no
# The binary carries its program after the ELF image: stripping it would cut that off.
%global __os_install_post %{nil}
%global debug_package %{nil}
%global __strip /bin/true
%global _build_id_links none
%global _binary_payload w6.gzdio

%description
A YAML job file, cron semantics down to the second, retries and alerting, durable state, DAGs
with approvals, leader election, a live dashboard and Prometheus metrics.

%install
mkdir -p %{buildroot}
cp -a ${tree}/. %{buildroot}/

%files
%attr(0755,root,root) /usr/bin/cronstable
%attr(0644,root,root) /usr/lib/systemd/system/cronstable.service
%dir %attr(0755,root,root) /etc/cronstable.d
%config(noreplace) %attr(0644,root,root) /etc/cronstable.d/cronstable.yaml
%dir %attr(0750,cronstable,cronstable) /var/lib/cronstable

${scriptlets}`;
    writeFileSync(join(top, 'cronstable.spec'), spec);
    await runAsync('rpmbuild', [
      '-bb',
      '--define',
      `_topdir ${join(top, 'build')}`,
      '--define',
      `_rpmdir ${out}`,
      '--define',
      '_build_name_fmt %%{NAME}-%%{VERSION}-%%{RELEASE}.%%{ARCH}.rpm',
      join(top, 'cronstable.spec'),
    ]);
    return join(out, `cronstable-${version}-1.${arch.rpm}.rpm`);
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
}

async function main() {
  const { values } = parseArgs({
    options: { binary: { type: 'string' }, out: { type: 'string' }, only: { type: 'string' } },
  });
  if (values.only && values.only !== 'deb' && values.only !== 'rpm')
    fail(`--only takes deb or rpm, not '${values.only}'`);
  const arch = ARCHES[process.arch];
  if (!arch) fail(`no package architecture for ${process.arch}`);
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
  let binary = values.binary;
  if (!binary) {
    binary = join(ROOT, 'dist', 'cronstable');
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-binary.mjs'), binary], {
      stdio: 'inherit',
    });
    if (r.status !== 0) fail('building the binary failed');
  }
  if (!existsSync(binary)) fail(`no binary at ${binary}`);
  const floor = glibcFloor(run('readelf', ['-V', '-W', binary]));
  if (!floor) fail(`${binary} names no GLIBC symbol version: not a glibc build`);
  const out = values.out ?? join(ROOT, 'dist', 'packages');
  mkdirSync(out, { recursive: true });
  const made = await Promise.all([
    values.only !== 'rpm' ? buildDeb({ binary, version, arch, floor, out }) : null,
    values.only !== 'deb' ? buildRpm({ binary, version, arch, floor, out }) : null,
  ]);
  for (const file of made) if (file) process.stdout.write(`${file}\n`);
  process.stderr.write(`package: glibc floor ${floor}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
