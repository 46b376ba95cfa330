// A throwaway single-member etcd for a local fleet: free ports on loopback, a temp data dir,
// never 2379/2380. Stopped with SIGTERM (SIGKILL after a grace), its data dir removed.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

export interface LocalEtcd {
  endpoint: string;
  dataDir: string;
  child: ChildProcess;
  /** Stops etcd (it can be started again with `restart`, same data and ports). */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** Stops it and removes its data dir. */
  close(): Promise<void>;
}

export const ETCD_BIN = process.env.CRONSTABLE_ETCD_BIN ?? '/usr/bin/etcd';

async function healthy(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
    const body = (await res.json()) as { health?: string };
    return body.health === 'true';
  } catch {
    return false;
  }
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((r) =>
    child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r()),
  );
}

export async function startEtcd(opts: { dir?: string; log?: string } = {}): Promise<LocalEtcd> {
  const dataDir = opts.dir ?? mkdtempSync(join(tmpdir(), 'cronstable-etcd-'));
  mkdirSync(dataDir, { recursive: true });
  const clientPort = await freePort();
  const peerPort = await freePort();
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name',
    'fleet',
    '--data-dir',
    join(dataDir, 'data'),
    '--listen-client-urls',
    endpoint,
    '--advertise-client-urls',
    endpoint,
    '--listen-peer-urls',
    peerUrl,
    '--initial-advertise-peer-urls',
    peerUrl,
    '--initial-cluster',
    `fleet=${peerUrl}`,
    '--log-level',
    'error',
  ];
  const spawnEtcd = async (): Promise<ChildProcess> => {
    const fd = openSync(opts.log ?? join(dataDir, 'etcd.log'), 'a');
    const child = spawn(ETCD_BIN, args, { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const deadline = Date.now() + 15_000;
    while (!(await healthy(endpoint))) {
      if (child.exitCode !== null) throw new Error(`etcd exited with ${child.exitCode} (see ${dataDir})`);
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`etcd did not become healthy at ${endpoint}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return child;
  };
  const etcd: LocalEtcd = {
    endpoint,
    dataDir,
    child: await spawnEtcd(),
    async stop() {
      const child = etcd.child;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited(child);
      clearTimeout(timer);
    },
    async restart() {
      await etcd.stop();
      etcd.child = await spawnEtcd();
    },
    async close() {
      await etcd.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return etcd;
}
