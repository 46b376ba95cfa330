// example/grand-tour/docker-compose.yml is correct by construction: no Docker engine runs here,
// so this reads the compose file, the Dockerfile and the scripts they name, checks each against
// the others, and runs node-entrypoint.sh for real (gossip/filesystem, spread/single-leader) into
// temp dirs whose config `cronstable -v` must accept.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort } from '../../scripts/fleet/ports.ts';
import { assemble, BUNDLE, ENTRYPOINT, EXAMPLE, ROOT, validate } from './grand-tour-kit.ts';

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string; target?: string };
  entrypoint?: string[];
  hostname?: string;
  user?: string;
  environment?: Record<string, string>;
  env_file?: string | string[];
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
}
interface Compose {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

const NODES = 'abcdefghi'.split('').map((c) => `meridian-${c}`);
const composeText = readFileSync(join(EXAMPLE, 'docker-compose.yml'), 'utf8');
const compose = parse(composeText) as Compose;
const entrypointText = readFileSync(join(EXAMPLE, 'node-entrypoint.sh'), 'utf8');
const platformText = readFileSync(join(EXAMPLE, 'platform.yaml'), 'utf8');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

/** `${VAR:-default}` defaults of the entrypoint. */
function entrypointDefault(name: string): string {
  const m = new RegExp(`^${name}=\\$\\{${name}:-(.*)\\}$`, 'm').exec(entrypointText);
  if (!m) throw new Error(`node-entrypoint.sh has no default for ${name}`);
  return m[1]!;
}

/** A compose `host:container[:mode]` volume entry. */
function mount(entry: string): { source: string; target: string; mode: string | undefined } {
  const [source, target, mode] = entry.split(':');
  return { source: source!, target: target!, mode };
}

interface Stage {
  from: string;
  name: string | null;
  lines: string[];
}

/** The Dockerfile's stages, continuation lines joined. */
function stages(text: string): Stage[] {
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const out: Stage[] = [];
  for (const line of logical) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?$/i.exec(line);
    if (from) out.push({ from: from[1]!, name: from[2] ?? null, lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return out;
}

describe('docker-compose.yml', () => {
  it('has the nine nodes, the certificate step and the three sinks, nothing else', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      [...NODES, 'certs', 'mailpit', 'statsd-exporter', 'webhook-sink'].sort(),
    );
  });

  it('serves the dashboards on host ports 8080-8088 and names each node by its service', () => {
    NODES.forEach((name, i) => {
      const s = compose.services[name]!;
      expect(s.hostname).toBe(name);
      expect(s.ports).toEqual([`${8080 + i}:8080`]);
      expect(s.entrypoint).toEqual(['/bin/sh', '/config/node-entrypoint.sh']);
      // The entrypoint picks the node's name from $HOSTNAME and its peers from PEERS.
      expect(entrypointDefault('NODE_NAME')).toContain('${HOSTNAME');
    });
    const peers = entrypointDefault('PEERS').split(' ');
    expect(peers).toEqual(NODES.map((n) => `${n}=${n}:8443`));
    // The mTLS listener matches the port the peers dial, the dashboard the port published.
    expect(entrypointDefault('PEER_LISTEN')).toBe('0.0.0.0:8443');
    expect(entrypointDefault('WEB_LISTEN')).toBe('http://0.0.0.0:8080');
    expect(platformText).toContain('\n    - http://0.0.0.0:8080\n');
  });

  it('publishes the inbox on 8025 and the statsd metrics on 9102; the nodes reach every sink by service name', () => {
    const s = compose.services;
    expect(s.mailpit!.ports).toEqual(['8025:8025']);
    expect(s['statsd-exporter']!.ports).toEqual(['9102:9102']);
    expect(s.mailpit!.environment).toMatchObject({
      MP_SMTP_AUTH_ACCEPT_ANY: '1',
      MP_SMTP_AUTH_ALLOW_INSECURE: '1',
    });
    expect(s['webhook-sink']!.environment).toMatchObject({ HTTP_PORT: '8080' });
    // platform.yaml names the Docker hosts; the entrypoint's defaults are the same hosts.
    expect(entrypointDefault('SMTP_HOST')).toBe('mailpit');
    expect(entrypointDefault('SMTP_PORT')).toBe('1025'); // Mailpit's SMTP port
    expect(entrypointDefault('WEBHOOK_URL')).toBe('http://webhook-sink:8080');
    expect(entrypointDefault('STATSD_HOST')).toBe('statsd-exporter');
    expect(entrypointDefault('STATSD_PORT')).toBe('9125'); // statsd_exporter's UDP port
    expect(platformText.match(/smtpHost: mailpit$/gm)).toHaveLength(4);
    expect(platformText.match(/smtpPort: 1025$/gm)).toHaveLength(4);
    expect(platformText.match(/value: http:\/\/webhook-sink:8080\/hooks\//g)).toHaveLength(3);
    expect(platformText.match(/host: statsd-exporter$/gm)).toHaveLength(2);
    expect(platformText.match(/port: 9125$/gm)).toHaveLength(2);
    for (const node of NODES)
      expect(Object.keys(compose.services[node]!.depends_on ?? {}).sort()).toEqual(
        ['certs', 'mailpit', 'statsd-exporter', 'webhook-sink'].sort(),
      );
    expect(compose.services[NODES[0]!]!.depends_on!.certs!.condition).toBe('service_completed_successfully');
  });

  it('mounts the example read-only, one shared state volume and the certificates, all declared', () => {
    const used = new Set<string>();
    for (const [name, s] of Object.entries(compose.services)) {
      for (const entry of s.volumes ?? []) {
        const m = mount(entry);
        if (m.source.startsWith('.')) {
          expect(resolve(EXAMPLE, m.source), `${name}: ${entry}`).toBe(resolve(EXAMPLE));
          expect(m.mode).toBe('ro');
        } else used.add(m.source);
      }
    }
    expect([...used].sort()).toEqual(Object.keys(compose.volumes).sort());
    expect(Object.keys(compose.volumes).sort()).toEqual(['certs', 'state']);
    for (const node of NODES) {
      const s = compose.services[node]!;
      const mounts = (s.volumes ?? []).map(mount);
      const at = (source: string) => mounts.find((m) => m.source === source)!;
      expect(at('./').target).toBe(s.environment!.CONFIG_SRC);
      expect(at('certs')).toMatchObject({ target: s.environment!.CERT_DIR, mode: 'ro' });
      // The one state volume, shared by all nine: STATE_DIR lives on it.
      expect(s.environment!.STATE_DIR!.startsWith(`${at('state').target}/`)).toBe(true);
      expect(at('state').mode).toBeUndefined();
    }
    expect(platformText).toContain('\n  path: /var/lib/cronstable/state\n');
    expect(platformText).toContain('\n  topology: shared\n');
    const certs = compose.services.certs!;
    expect(certs.volumes!.map(mount).find((m) => m.source === 'certs')).toMatchObject({ target: '/certs' });
    expect(certs.volumes!.map(mount).find((m) => m.source === 'certs')!.mode).toBeUndefined();
  });

  it('passes only variables the entrypoint or the job set reads, with the switches from the host', () => {
    const node = compose.services['meridian-a']!;
    const env = node.environment!;
    expect(env).toMatchObject({
      BACKEND: '${BACKEND:-gossip}',
      DISTRIBUTION: '${DISTRIBUTION:-}',
      WEB_TOKEN: '${WEB_TOKEN:-}',
      CONFIG_DIR: '/tmp/cronstable.d',
    });
    for (const key of Object.keys(env)) {
      const readByEntrypoint = new RegExp(`^${key}=\\$\\{${key}:-`, 'm').test(entrypointText);
      const readByJobs = platformText.includes(`fromEnvVar: ${key}`);
      expect(readByEntrypoint || readByJobs, `${key} is read by nobody`).toBe(true);
    }
    for (const [name, s] of Object.entries(compose.services)) {
      // No service reads an env_file; any that did would have to exist next to the compose file.
      for (const f of [s.env_file ?? []].flat())
        expect(existsSync(join(EXAMPLE, f)), `${name}: ${f}`).toBe(true);
    }
    // The nine node blocks are written out in full: identical but for the name and the port.
    const rest = (n: string) => {
      const { hostname: _h, ports: _p, ...others } = compose.services[n]!;
      return others;
    };
    for (const n of NODES) expect(rest(n)).toEqual(rest('meridian-a'));
  });

  it('references only files the example holds', () => {
    const files = new Set<string>();
    for (const s of Object.values(compose.services)) {
      for (const arg of [...(s.entrypoint ?? [])]) if (arg.startsWith('/config/')) files.add(arg.slice(8));
    }
    expect([...files].sort()).toEqual(['gen-certs.sh', 'node-entrypoint.sh']);
    // What the entrypoint copies and platform.yaml pulls in.
    const copied =
      /cp "\$CONFIG_SRC\/_defaults.yaml" "\$CONFIG_SRC\/legacy.crontab" "\$CONFIG_SRC\/platform.env"/;
    expect(entrypointText).toMatch(copied);
    for (const f of [
      ...files,
      'platform.yaml',
      '_defaults.yaml',
      'legacy.crontab',
      'platform.env',
      'secrets/signing.key',
      'README.md',
    ])
      expect(existsSync(join(EXAMPLE, f)), f).toBe(true);
    expect(platformText).toMatch(/^ {4}env_file: platform\.env$/m);
    expect(platformText).toMatch(/^ {8}fromFile: secrets\/signing\.key$/m);
    expect(platformText).toMatch(/^ {2}- _defaults\.yaml$/m);
    // The README's links to sibling files resolve.
    const readme = readFileSync(join(EXAMPLE, 'README.md'), 'utf8');
    for (const [, link] of readme.matchAll(/\]\(([\w./-]+)\)/g))
      expect(existsSync(join(EXAMPLE, link!)), link).toBe(true);
  });

  it('builds every service that runs cronstable from the repository Dockerfile, grand-tour target', () => {
    for (const name of [...NODES, 'certs']) {
      const s = compose.services[name]!;
      expect(s.build).toEqual({ context: '../..', dockerfile: 'Dockerfile', target: 'grand-tour' });
      expect(resolve(EXAMPLE, s.build!.context)).toBe(ROOT);
      expect(s.image).toBe('cronstable-grand-tour:local');
    }
    const certs = compose.services.certs!;
    expect(certs.entrypoint).toEqual(['/bin/sh', '/config/gen-certs.sh', '/certs']);
    // The node user of the Dockerfile owns the minted keys.
    const uid = /useradd --system --uid (\d+) --gid/.exec(dockerfile)![1];
    const gid = /groupadd --system --gid (\d+)/.exec(dockerfile)![1];
    expect(certs.environment!.CERT_OWNER).toBe(`${uid}:${gid}`);
  });
});

describe('the Dockerfile', () => {
  const all = stages(dockerfile);
  const byName = (n: string) => all.find((s) => s.name === n)!;

  it('has its build stage produce the binary the nodes exec', () => {
    const build = byName('build');
    expect(build.lines).toContain('RUN npm run build:binary');
    const workdir = build.lines.find((l) => l.startsWith('WORKDIR '))!.split(/\s+/)[1];
    // npm run build:binary -> scripts/build-binary.mjs, whose default output is dist/cronstable.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts['build:binary']).toMatch(/node scripts\/build-binary\.mjs$/);
    const script = readFileSync(join(ROOT, 'scripts', 'build-binary.mjs'), 'utf8');
    expect(script).toContain("process.argv[2] ?? join(root, 'dist', 'cronstable')");
    // dist/ is never sent to the build context, so the image always holds a fresh build.
    expect(readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n')).toContain('dist');
    const runtime = byName('runtime');
    const copy = runtime.lines.find((l) => l.startsWith('COPY --from=build'))!;
    const [, , from, to] = copy.split(/\s+/);
    expect(from).toBe(`${workdir}/dist/cronstable`);
    expect(to).toBe(entrypointDefault('CRONSTABLE_BIN'));
    expect(entrypointText).toContain('exec "$CRONSTABLE_BIN" -c "$CONFIG_DIR"');
    // The compose nodes do not override it: they exec exactly that file.
    expect(compose.services['meridian-a']!.environment!.CRONSTABLE_BIN).toBeUndefined();
  });

  it('copies only files that exist, and installs the pinned Bun before it compiles the binary', () => {
    const build = byName('build');
    for (const line of build.lines.filter((l) => l.startsWith('COPY ') && !l.includes('--from'))) {
      const parts = line.split(/\s+/).slice(1);
      for (const src of parts.slice(0, -1))
        if (src !== '.') expect(existsSync(join(ROOT, src)), src).toBe(true);
    }
    const runtimes = build.lines.indexOf('RUN npm ci --prefix tools/runtimes --no-audit --no-fund');
    expect(runtimes).toBeGreaterThan(-1);
    expect(runtimes).toBeLessThan(build.lines.indexOf('RUN npm run build:binary'));
    const pinned = JSON.parse(readFileSync(join(ROOT, 'tools', 'runtimes', 'package-lock.json'), 'utf8'));
    expect(pinned.packages['node_modules/bun'].version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('adds the tour tools in a grand-tour stage on the runtime and keeps the lean image the default', () => {
    const tour = byName('grand-tour');
    expect(tour.from).toBe('runtime');
    const install = tour.lines.find((l) => l.includes('apt-get install'))!;
    expect(install).toMatch(/\bcurl\b/); // the pulse-* probes and the release canary
    expect(install).toMatch(/\bopenssl\b/); // gen-certs.sh in the certs service
    expect(platformText).toContain('curl -s');
    expect(tour.lines).toContain('USER cronstable:cronstable');
    expect(all.at(-1)).toMatchObject({ from: 'runtime', name: null });
  });
});

describe('node-entrypoint.sh', () => {
  let dir: string;
  let certDir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tour-compose-'));
    certDir = join(dir, 'certs');
    const r = spawnSync('/bin/sh', [join(EXAMPLE, 'gen-certs.sh'), certDir], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const base = (node: string, extra: Record<string, string>) => ({
    NODE_NAME: node,
    CONFIG_DIR: join(dir, node),
    STATE_DIR: join(dir, 'state'),
    CERT_DIR: certDir,
    ...extra,
  });

  it('minted a CA and nine P-256 leaves naming their node', () => {
    for (const node of NODES) {
      const text = spawnSync('openssl', ['x509', '-in', join(certDir, `${node}.pem`), '-noout', '-text'], {
        encoding: 'utf8',
      }).stdout;
      expect(text).toContain(`DNS:${node}`);
      expect(text).toContain('prime256v1');
      expect(text).toContain('TLS Web Server Authentication, TLS Web Client Authentication');
      const verify = spawnSync('openssl', [
        'verify',
        '-CAfile',
        join(certDir, 'ca.pem'),
        join(certDir, `${node}.pem`),
      ]);
      expect(verify.status).toBe(0);
    }
  });

  it.each([
    ['meridian-a', { BACKEND: 'gossip', DISTRIBUTION: 'spread' }],
    ['meridian-e', { BACKEND: 'gossip', DISTRIBUTION: 'single-leader', WEB_TOKEN: 's3cret' }],
    ['meridian-i', { BACKEND: 'filesystem' }],
  ] as const)('%s with %o writes a config cronstable -v accepts', (node, env) => {
    const r = assemble(base(node, env));
    expect(r.status, r.stderr).toBe(0);
    const cluster = readFileSync(join(dir, node, 'cluster.yaml'), 'utf8');
    expect(cluster).toContain(`nodeName: ${node}`);
    expect(cluster).toContain(`backend: ${env.BACKEND}`);
    const peers = [...cluster.matchAll(/- host: (\S+)/g)].map((m) => m[1]);
    expect(peers).toEqual(NODES.filter((n) => n !== node).map((n) => `${n}:8443`));
    if (env.BACKEND === 'gossip') expect(cluster).toContain(`distribution: ${env.DISTRIBUTION}`);
    else expect(cluster).toMatch(/filesystem:\n {4}path: .*\/state\n/);
    const platform = readFileSync(join(dir, node, 'platform.yaml'), 'utf8');
    expect(platform.includes('\n  authToken:\n    fromEnvVar: WEB_TOKEN\n')).toBe('WEB_TOKEN' in env);
    const v = validate(join(dir, node), { WEB_TOKEN: 's3cret' });
    expect(v.output).toContain('Configuration is valid.');
    expect(v.status).toBe(0);
  });

  it('refuses spread on the filesystem backend and a gossip node without certificates', () => {
    const spread = assemble(base('meridian-b', { BACKEND: 'filesystem', DISTRIBUTION: 'spread' }));
    expect(spread.status).toBe(2);
    expect(spread.stderr).toContain('BACKEND=filesystem elects a single leader');
    const noCerts = assemble(base('meridian-c', { BACKEND: 'gossip', CERT_DIR: join(dir, 'nowhere') }));
    expect(noCerts.status).toBe(2);
    expect(noCerts.stderr).toContain('ca.pem: run gen-certs.sh first');
    const bad = assemble(base('meridian-d', { BACKEND: 'etcd' }));
    expect(bad.stderr).toContain('BACKEND must be gossip, filesystem or none');
  });

  it('execs the daemon it assembled: it serves on WEB_LISTEN, asks for the token, and the probes present it', async () => {
    const port = await freePort();
    const bin = join(dir, 'cronstable-bin');
    // The tour runs jobs that sleep 20-90 s every minute; one started when the test stops the
    // daemon held its SIGTERM for the default 60 s shutdown timeout (the 73-74 s this test took in
    // two clean clones), so the daemon here lets running jobs 1 s.
    writeFileSync(
      bin,
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BUNDLE)} --shutdown-timeout 1 "$@"\n`,
    );
    chmodSync(bin, 0o755);
    const url = `http://127.0.0.1:${port}`;
    const child = spawn('/bin/sh', [ENTRYPOINT], {
      env: {
        PATH: process.env.PATH,
        NODE_NAME: 'meridian-a',
        BACKEND: 'none',
        WEB_TOKEN: 's3cret',
        CONFIG_SRC: EXAMPLE,
        CONFIG_DIR: join(dir, 'live'),
        STATE_DIR: join(dir, 'live-state'),
        WEB_LISTEN: url,
        CRONSTABLE_URL: url,
        CRONSTABLE_BIN: bin,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const auth = { authorization: 'Bearer s3cret' };
    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${url}${path}`, { headers }).catch(() => null);
    try {
      // Generous: a probe needs its curl answered within 2 s, which a starved CI machine can miss.
      const end = Date.now() + 60_000;
      // The probe curls CRONSTABLE_URL/status, which answers 401 without the token: a successful
      // run shows it presented $WEB_TOKEN. (A run before the listener was up may fail.)
      let seen: string[] = [];
      const succeeded = async () => {
        const res = await get('/jobs/pulse-liveness/runs', auth);
        if (res?.status !== 200) return false;
        const { runs } = (await res.json()) as {
          runs: { outcome?: string; exit_code?: number; fail_reason?: string | null }[];
        };
        seen = runs.map((r) => `${r.outcome} ${r.exit_code} ${r.fail_reason ?? ''}`);
        return runs.some((r) => r.outcome === 'success' && r.exit_code === 0);
      };
      while (!(await succeeded())) {
        if (Date.now() > end)
          throw new Error(
            `no successful pulse-liveness run (${seen.join('; ')}); stderr:\n${err.slice(-3000)}`,
          );
        await new Promise((r) => setTimeout(r, 200));
      }
      // A pass that waited long is printed (runs come every 5 s).
      const waited = 60_000 - (end - Date.now());
      if (waited > 20_000)
        console.warn(
          `the first successful pulse-liveness run came after ${waited} ms; runs: ${seen.join('; ')}; stderr:\n${err.slice(-3000)}`,
        );
      expect((await get('/status'))?.status).toBe(401);
      expect((await get('/status', auth))?.status).toBe(200);
      expect((await get('/metrics'))?.status).toBe(200);
    } finally {
      child.kill('SIGTERM'); // the entrypoint exec'd the daemon: this pid is the daemon
      expect(await exited).toBe(0);
    }
  }, 90_000);
});
