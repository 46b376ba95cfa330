// A real single-member etcd for the etcd backend's tests: free client and peer ports, a temp data
// directory, ready once `/health` answers. It can be stopped and started again on the same ports
// and data directory, to show a backend failing closed while the store is gone and recovering.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The etcd binary on PATH, or null (the tests skip, saying so). CI installs `etcd-server`. */
export function etcdBinary(): string | null {
  const r = spawnSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' });
  const path = r.stdout.trim();
  return r.status === 0 && path !== '' ? path : null;
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const addr = srv.address();
  await new Promise((r) => srv.close(r));
  if (!addr || typeof addr === 'string') throw new Error('no port');
  return addr.port;
}

export interface EtcdServer {
  /** `http://127.0.0.1:<clientPort>` */
  url: string;
  /** Starts (again) on the same ports and data dir; resolves once healthy. */
  start(): Promise<void>;
  /** SIGKILL-free stop: SIGTERM, then SIGKILL after 3 s; resolves when the process is gone. */
  stop(): Promise<void>;
  /** Stops and removes the data directory. */
  destroy(): Promise<void>;
}

export async function startEtcd(): Promise<EtcdServer> {
  const bin = etcdBinary();
  if (!bin) throw new Error('etcd is not on PATH');
  const clientPort = await freePort();
  const peerPort = await freePort();
  // tmpfs when there is one: etcd fsyncs every write, and a slow disk would stretch our rounds.
  const dataDir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'cronstable-etcd-'));
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  let child: ChildProcess | null = null;
  let output = '';

  const healthy = async (): Promise<boolean> => {
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as { health?: unknown };
      return res.ok && (body.health === 'true' || body.health === true);
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
