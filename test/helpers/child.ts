// Stops a child process the way an operator would: SIGTERM, then SIGKILL after a grace, and waits
// for it to exit. The e2e tests' daemons all end this way.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export async function stopChild(child: ChildProcess | null | undefined, graceMs = 8000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * True once process `pid` no longer runs. A killed orphan may linger as a zombie when the container's
 * init does not reap (it is dead all the same), so `Z` (and `X`) count as gone.
 */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return true;
  }
}
