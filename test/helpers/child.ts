// Stops a child process the way an operator would: SIGTERM, then SIGKILL after a grace, and waits
// for it to exit. The e2e tests' daemons all end this way.
import type { ChildProcess } from 'node:child_process';

export async function stopChild(child: ChildProcess | null | undefined, graceMs = 8000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
