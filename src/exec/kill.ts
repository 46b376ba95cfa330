// Signalling a run's process group with a fallback to the direct child (spec 02 §5.2).

export interface SignalTarget {
  pid: number;
  /** True while the direct child's exit has not been observed. */
  childAlive(): boolean;
  warn(message: string): void;
  name: string;
}

/**
 * Sends `signal` to the whole group (`-pid`). An empty group (ESRCH) or an unsignallable one
 * (EPERM/other: warned) falls back to signalling the direct child if it has not exited.
 */
export function signalGroup(target: SignalTarget, signal: NodeJS.Signals): void {
  try {
    process.kill(-target.pid, signal);
    return;
  } catch (err) {
    const code = errorCode(err);
    if (code !== 'ESRCH') {
      target.warn(`job ${target.name}: could not send ${signal} to process group ${target.pid}: ${code}`);
    }
  }
  if (!target.childAlive()) return;
  try {
    process.kill(target.pid, signal);
  } catch (err) {
    const code = errorCode(err);
    if (code !== 'ESRCH') {
      target.warn(`job ${target.name}: could not send ${signal} to process ${target.pid}: ${code}`);
    }
  }
}

export function errorCode(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') {
    return err.code;
  }
  return String(err);
}

/** Seconds as the log lines print them (`30`, `0.5`). */
export function formatSeconds(seconds: number): string {
  return String(seconds);
}

/**
 * At shutdown a run gets at most this long between SIGTERM and SIGKILL, whatever its
 * killTimeout: the daemon must exit within --shutdown-timeout (issue 14 item 3).
 */
export const SHUTDOWN_KILL_MS = 1000;
