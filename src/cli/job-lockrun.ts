// `cronstable lock run NAME -- CMD...`: runs CMD with inherited stdio while the lock is held.
// From the start of the acquire to the end of the command, termination signals sent to this
// process are caught (forwarded to the command once it runs) so the hold is always released
// afterwards; the daemon also releases it at run end.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

const CAUGHT: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

/** Exit code of a process killed by `signal` (shell convention 128 + n). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

export class SignalRelay {
  /** The first signal received, if any. */
  received: NodeJS.Signals | null = null;
  private readonly abort = new AbortController();
  private child: {
    kill: (s: NodeJS.Signals) => boolean;
    exitCode: number | null;
    signalCode: string | null;
  } | null = null;
  private readonly handlers = new Map<NodeJS.Signals, () => void>();

  /** Aborted on the first signal (cancels a pending acquire request). */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  install(): this {
    for (const sig of CAUGHT) {
      const h = () => {
        this.received ??= sig;
        const c = this.child;
        if (c && c.exitCode === null && c.signalCode === null) c.kill(sig);
        this.abort.abort();
      };
      this.handlers.set(sig, h);
      process.on(sig, h);
    }
    return this;
  }

  uninstall(): void {
    for (const [sig, h] of this.handlers) process.off(sig, h);
    this.handlers.clear();
  }

  /** Runs the command; its exit code (128 + signal number when killed), or a start error. */
  run(command: string[], env: NodeJS.ProcessEnv): Promise<{ code: number } | { error: string }> {
    return new Promise((resolve) => {
      const [file, ...args] = command;
      const child = spawn(file!, args, { stdio: 'inherit', env });
      this.child = child;
      child.once('error', (e: NodeJS.ErrnoException) => {
        resolve({ error: `cannot run '${file}': ${e.code === 'ENOENT' ? 'command not found' : e.message}` });
      });
      child.once('exit', (code, signal) => {
        resolve(code !== null ? { code } : { code: signal ? signalExitCode(signal) : 1 });
      });
    });
  }
}
