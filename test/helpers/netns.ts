// A private network namespace for tests that send multicast (spec 10 §6.6's mDNS): a veth pair made
// inside it, one end at 192.0.2.10/24 (the documentation range) with the multicast route on it, and
// loopback up. Whatever a process run through `exec()` sends stays on those interfaces: the
// namespace has no link to the host's. Where one cannot be made (not root, no `ip`, no netns
// support) `makeNetns` says why and the caller skips; nothing ever falls back to the host.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export const NETNS_ADDRESS = '192.0.2.10';

export interface Netns {
  name: string;
  /** Starts `argv` inside the namespace (`ip netns exec`, which execs it: the pid is the command's). */
  spawn(argv: string[], opts?: Parameters<typeof spawn>[2]): ChildProcess;
  /** Runs `argv` inside the namespace to completion. */
  run(argv: string[], timeoutMs?: number): { status: number | null; stdout: string; stderr: string };
  /** Deletes the namespace (and with it the veth pair); idempotent. */
  remove(): void;
}

function ip(args: string[]): string | null {
  const r = spawnSync('ip', args, { encoding: 'utf8', timeout: 10_000 });
  if (r.error) return `ip ${args.join(' ')}: ${r.error.message}`;
  return r.status === 0 ? null : `ip ${args.join(' ')} failed: ${(r.stderr || r.stdout).trim()}`;
}

/** Makes the namespace, or returns why it cannot (then nothing is left behind). */
export function makeNetns(): Netns | { reason: string } {
  if (process.platform !== 'linux') return { reason: 'network namespaces need Linux' };
  if (process.getuid?.() !== 0) return { reason: 'making a network namespace needs root' };
  if (spawnSync('ip', ['-V']).error) return { reason: 'the ip command (iproute2) is not installed' };
  const name = `cs-mdns-${randomBytes(4).toString('hex')}`;
  const made = ip(['netns', 'add', name]);
  if (made) return { reason: `cannot make a network namespace: ${made}` };
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    process.off('exit', remove);
    ip(['netns', 'delete', name]);
  };
  // A crashed or interrupted run must not leave the namespace behind either.
  process.on('exit', remove);
  const steps = [
    ['-n', name, 'link', 'add', 'csa0', 'type', 'veth', 'peer', 'name', 'csb0'],
    ['-n', name, 'link', 'set', 'csa0', 'up'],
    ['-n', name, 'link', 'set', 'csb0', 'up'],
    ['-n', name, 'addr', 'add', `${NETNS_ADDRESS}/24`, 'dev', 'csa0'],
    ['-n', name, 'route', 'add', '224.0.0.0/4', 'dev', 'csa0'],
    ['-n', name, 'link', 'set', 'lo', 'up'],
  ];
  for (const step of steps) {
    const failed = ip(step);
    if (failed) {
      remove();
      return { reason: `cannot set up the network namespace: ${failed}` };
    }
  }
  const argvIn = (argv: string[]) => ['netns', 'exec', name, ...argv];
  return {
    name,
    spawn: (argv, opts = {}) => spawn('ip', argvIn(argv), opts),
    run(argv, timeoutMs = 30_000) {
      const r = spawnSync('ip', argvIn(argv), { encoding: 'utf8', timeout: timeoutMs });
      return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
    },
    remove,
  };
}
