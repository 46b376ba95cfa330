// Terminal modes and their restore (spec 08 §1.3-§1.4): the alternate screen, a hidden cursor and raw input
// while the dashboard runs; the shell gets its terminal back on every way out, SIGTERM and SIGHUP included
// (Q1), and around a suspend (Q2). Restores are synchronous writes, so they land even on the way to exit.
import { writeSync } from 'node:fs';
import { errorText } from '../util/errors.ts';

// Bracketed paste on (Q25) with the alternate screen, off again on the way out.
export const ENTER = '\u001b[?1049h\u001b[?25l\u001b[?2004h\u001b[2J\u001b[H';
export const LEAVE = '\u001b[0m\u001b[?2004l\u001b[?1049l\u001b[?25h';

export interface TerminalHooks {
  /** the program must end with this code (signal, crash) */
  exit: (code: number) => void;
  /** after a resume: repaint everything */
  resumed: () => void;
  /** before the process stops: release what the renderer holds */
  suspending?: () => void;
}

export class Terminal {
  private entered = false;
  private readonly buffered: string[] = [];
  private originalStderrWrite: typeof process.stderr.write | null = null;
  private readonly handlers: Array<[string, (...a: unknown[]) => void]> = [];

  constructor(
    private readonly stdin: NodeJS.ReadStream,
    private readonly fd = 1,
  ) {}

  private write(text: string): void {
    try {
      writeSync(this.fd, text);
    } catch {
      // The terminal is gone (SIGHUP): nothing left to restore.
    }
  }

  enter(): void {
    this.write(ENTER);
    if (this.stdin.isTTY) this.stdin.setRawMode(true);
    this.entered = true;
  }

  /** Leaves the alternate screen, shows the cursor, cooked input. Idempotent. */
  restore(): void {
    if (!this.entered) return;
    this.entered = false;
    try {
      if (this.stdin.isTTY) this.stdin.setRawMode(false);
    } catch {
      // stdin already closed
    }
    this.write(LEAVE);
    this.flushStderr();
  }

  /**
   * Q21: diagnostics written to stderr while the dashboard owns the screen would draw over it; they wait and are
   * printed once the shell has its terminal back (a suspend, the exit). Off the screen they pass straight on.
   */
  holdStderr(): void {
    if (this.originalStderrWrite) return;
    const original = process.stderr.write;
    this.originalStderrWrite = original;
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      if (!this.entered)
        return (original as (...a: unknown[]) => boolean).call(process.stderr, chunk, ...rest);
      this.buffered.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      (rest.find((a) => typeof a === 'function') as (() => void) | undefined)?.();
      return true;
    }) as typeof process.stderr.write;
  }

  /** Puts the real `process.stderr.write` back, after printing what waited. */
  releaseStderr(): void {
    this.flushStderr();
    if (!this.originalStderrWrite) return;
    process.stderr.write = this.originalStderrWrite;
    this.originalStderrWrite = null;
  }

  private flushStderr(): void {
    const original = this.originalStderrWrite;
    if (!original) return;
    for (const text of this.buffered.splice(0)) original.call(process.stderr, text);
  }

  /** Ctrl-Z or SIGTSTP: give the shell its terminal, then stop; SIGCONT comes back through resume(). */
  suspend(hooks: TerminalHooks): void {
    hooks.suspending?.();
    this.restore();
    process.kill(process.pid, 'SIGSTOP');
  }

  private resume(hooks: TerminalHooks): void {
    if (this.entered) return;
    this.enter();
    hooks.resumed();
  }

  /** Installs the signal and crash handlers; `dispose` removes them. */
  install(hooks: TerminalHooks): void {
    const on = (ev: string, fn: (...a: unknown[]) => void) => {
      process.on(ev as NodeJS.Signals, fn);
      this.handlers.push([ev, fn]);
    };
    const byeSignal = (code: number) => () => {
      this.restore();
      hooks.exit(code);
    };
    on('SIGTERM', byeSignal(143));
    on('SIGHUP', byeSignal(129));
    on('SIGINT', byeSignal(0));
    on('SIGTSTP', () => this.suspend(hooks));
    on('SIGCONT', () => this.resume(hooks));
    on('exit', () => this.restore());
    const crash = (err: unknown) => {
      this.restore();
      this.releaseStderr();
      process.stderr.write(`cronstable tui: ${errorText(err, { stack: true })}\n`);
      hooks.exit(1);
    };
    on('uncaughtException', crash);
    on('unhandledRejection', crash);
  }

  dispose(): void {
    for (const [ev, fn] of this.handlers.splice(0)) process.off(ev as NodeJS.Signals, fn);
  }
}
