// Free TCP ports on loopback addresses, for nodes, proxies and etcd started by the fleet.
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pidAlive } from '../../src/util/pid.ts';

/**
 * A port free on `host` now (racy by nature: bind it soon). Drawn at random from below the kernel's
 * ephemeral range, so no outgoing connection (a fetch, a gossip dial, another test's client) can
 * take it between this call and the bind: the OS hands those out only inside that range. Only another
 * freePort caller could, so every port handed out is also reserved across processes (see `reserve`):
 * a daemon restarted on its port leaves it unbound for a moment, and a draw in another process must
 * not take it then.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const top = ephemeralLow() - 1;
  if (top - LOW_FLOOR >= 4096)
    for (let i = 0; i < 50; i++) {
      const port = LOW_FLOOR + Math.floor(Math.random() * (top - LOW_FLOOR + 1));
      if (handedOut.has(port) || !reserve(port)) continue;
      handedOut.add(port);
      if (await canBind(host, port)) return port;
    }
  return osPort(host);
}

// Above the ports the examples and the tour's sinks use (1025, 8025, 8080-8090, 9102, 9125).
const LOW_FLOOR = 15000;
const handedOut = new Set<number>();

/**
 * Claims `port` for this process's lifetime with a file named for it, created exclusively, in a
 * directory every freePort caller of this user shares (test workers, the fleet runner, benches).
 * A claim whose owner has exited is taken over; the owner removes its own claims at exit. Where the
 * directory cannot be written, the claim is granted: the bind check is then the only guard.
 */
export function reserve(port: number, dir = reservationDir()): boolean {
  const file = join(dir, String(port));
  try {
    mkdirSync(dir, { recursive: true });
  } catch {
    return true;
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      claimed.add(file);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return true;
    }
    let owner = 0;
    try {
      owner = Number(readFileSync(file, 'utf8'));
    } catch {
      // Unreadable (released this instant): read as no id, so counted as held, below.
    }
    if (alive(owner)) return false;
    try {
      unlinkSync(file);
    } catch {
      // Another process took the stale claim over first; the next exclusive create settles it.
    }
  }
  return false;
}

const claimed = new Set<string>();
process.once('exit', () => {
  for (const file of claimed)
    try {
      unlinkSync(file);
    } catch {
      // Already gone: nothing to release.
    }
});

function reservationDir(): string {
  return join(tmpdir(), `cronstable-ports-${process.getuid?.() ?? 'user'}`);
}

/** Whether a claim's owner runs (a claim file mid-write reads as no id: treated as alive). */
function alive(pid: number): boolean {
  return !Number.isInteger(pid) || pid <= 0 || pidAlive(pid);
}

function ephemeralLow(): number {
  try {
    const first = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
    return Number.isInteger(first) && first > 0 ? first : 32768;
  } catch {
    return 32768; // Linux's default; elsewhere the draw is still checked by binding
  }
}

/** A port the OS hands out for `listen(0)`: inside the ephemeral range, the fallback. */
async function osPort(host: string): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, host, resolve);
  });
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Whether `host:port` can be bound right now. */
export async function canBind(host: string, port: number): Promise<boolean> {
  const srv = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, host, resolve);
    });
    await new Promise((r) => srv.close(r));
    return true;
  } catch {
    return false;
  }
}

/**
 * `port` when `host:port` can be bound now; otherwise null, after telling `note` that `what` moves
 * to a free port (the caller then lets the OS pick one).
 */
export async function preferredPort(
  host: string,
  port: number,
  what: string,
  note?: (line: string) => void,
): Promise<number | null> {
  if (await canBind(host, port)) return port;
  note?.(`${what}: ${host}:${port} is in use, using a free port instead`);
  return null;
}
