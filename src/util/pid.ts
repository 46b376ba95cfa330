// Whether a process id names a live process: the store's admin lock, a DAG run's advancing daemon
// and a job process that outlived a restart are all judged by it.

/** One we may not signal (EPERM) runs all the same. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
