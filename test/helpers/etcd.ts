// A real single-member etcd for the etcd backend's tests: free client and peer ports, a temp data
// directory, ready once `/health` answers. It can be stopped and started again on the same ports
// and data directory, to show a backend failing closed while the store is gone and recovering.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/fleet/ports.ts';
import { JsonTransport } from '../../src/cluster/json-transport.ts';

export { freePort };

/** The etcd binary on PATH, or null (the tests skip, saying so). CI installs `etcd-server`. */
export function etcdBinary(): string | null {
  const r = spawnSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' });
  const path = r.stdout.trim();
  return r.status === 0 && path !== '' ? path : null;
}

export interface EtcdServer {
  /** `http(s)://127.0.0.1:<clientPort>` */
  url: string;
  /** Starts (again) on the same ports and data dir; resolves once healthy. */
  start(): Promise<void>;
  /** SIGKILL-free stop: SIGTERM, then SIGKILL after 3 s; resolves when the process is gone. */
  stop(): Promise<void>;
  /** Stops and removes the data directory. */
  destroy(): Promise<void>;
}

export interface EtcdOptions {
  /** Serve clients over https with these files (paths), requiring client certificates. */
  tls?: { ca: string; cert: string; key: string };
  /** More flags (e.g. `--auth-token-ttl`). */
  extraArgs?: string[];
}

export async function startEtcd(opts: EtcdOptions = {}): Promise<EtcdServer> {
  const bin = etcdBinary();
  if (!bin) throw new Error('etcd is not on PATH');
  const clientPort = await freePort();
  const peerPort = await freePort();
  const tls = opts.tls;
  const transport = new JsonTransport(
    tls
      ? {
          ca: readFileSync(tls.ca, 'utf8'),
          cert: readFileSync(tls.cert, 'utf8'),
          key: readFileSync(tls.key, 'utf8'),
        }
      : {},
  );
  // tmpfs when there is one: etcd fsyncs every write, and a slow disk would stretch our rounds.
  const dataDir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'cronstable-etcd-'));
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  let child: ChildProcess | null = null;
  let output = '';

  const healthy = async (): Promise<boolean> => {
    try {
      const res = await transport.request({ method: 'GET', url: `${url}/health`, timeoutMs: 1000 });
      const body = res.body as { health?: unknown } | null;
      return res.status === 200 && (body?.health === 'true' || body?.health === true);
    } catch {
      return false;
    }
  };

  const server: EtcdServer = {
    url,
    async start() {
      if (child) return;
      output = '';
      const p = spawn(
        bin,
        [
          '--name',
          'test',
          '--data-dir',
          dataDir,
          '--listen-client-urls',
          url,
          '--advertise-client-urls',
          url,
          '--listen-peer-urls',
          peer,
          '--initial-advertise-peer-urls',
          peer,
          '--initial-cluster',
          `test=${peer}`,
          '--initial-cluster-state',
          'new',
          '--log-level',
          'error',
          '--logger',
          'zap',
          ...(tls
            ? [
                '--cert-file',
                tls.cert,
                '--key-file',
                tls.key,
                '--trusted-ca-file',
                tls.ca,
                '--client-cert-auth',
              ]
            : []),
          ...(opts.extraArgs ?? []),
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = p;
      p.stdout?.on('data', (c: Buffer) => {
        output = (output + c.toString()).slice(-4000);
      });
      p.stderr?.on('data', (c: Buffer) => {
        output = (output + c.toString()).slice(-4000);
      });
      p.on('exit', () => {
        if (child === p) child = null;
      });
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        if (!child) throw new Error(`etcd exited during start:\n${output}`);
        if (await healthy()) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`etcd did not become healthy in 20 s:\n${output}`);
    },
    async stop() {
      const p = child;
      if (!p || p.exitCode !== null) {
        child = null;
        return;
      }
      const gone = new Promise<void>((r) => p.once('exit', () => r()));
      p.kill('SIGTERM');
      const timer = setTimeout(() => p.kill('SIGKILL'), 3000);
      await gone;
      clearTimeout(timer);
      child = null;
    },
    async destroy() {
      await server.stop();
      transport.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await server.start();
  } catch (e) {
    await server.destroy();
    throw e;
  }
  return server;
}

/**
 * A client certificate without a CommonName, signed by `ca`. etcd refuses gateway requests whose
 * client certificate carries a CN while auth is on (the gateway could not honour it as the user
 * name), so password auth over mutual TLS needs a CN-less client certificate.
 */
export function cnLessClientCert(dir: string, ca: string, caKey: string): { cert: string; key: string } {
  const run = (args: string[]) =>
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const key = join(dir, 'client-no-cn.key');
  const csr = join(dir, 'client-no-cn.csr');
  const ext = join(dir, 'client-no-cn.ext');
  const cert = join(dir, 'client-no-cn.pem');
  run(
    ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'].concat([
      '-keyout',
      key,
      '-out',
      csr,
      '-subj',
      '/O=cronstable',
    ]),
  );
  writeFileSync(
    ext,
    'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
  );
  run(
    ['x509', '-req', '-in', csr, '-CA', ca, '-CAkey', caKey, '-CAcreateserial', '-days', '30'].concat([
      '-extfile',
      ext,
      '-out',
      cert,
    ]),
  );
  return { cert, key };
}
