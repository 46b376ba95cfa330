// The TUI end to end: `node dist/cronstable.mjs tui ...` in a real pseudo-terminal (node-pty), its output fed
// to a headless xterm, so tests assert on the screen a person would see; the raw byte log is kept too.
import pty from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { DAEMON } from './e2e-daemon.ts';

export interface TuiPtyOptions {
  cols?: number;
  rows?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** run this `sh -c` script instead of the dashboard itself */
  shell?: string;
}

export class TuiPty {
  readonly term: xterm.Terminal;
  private readonly proc: pty.IPty;
  /** every byte the program wrote, in order */
  raw = '';
  private pending: Promise<void> = Promise.resolve();
  readonly exited: Promise<{ exitCode: number; signal?: number }>;

  constructor(args: readonly string[], opts: TuiPtyOptions = {}) {
    const cols = opts.cols ?? 120;
    const rows = opts.rows ?? 40;
    this.term = new xterm.Terminal({ cols, rows, allowProposedApi: true });
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({
      ...process.env,
      TERM: 'xterm-256color',
      COLORTERM: 'truecolor',
      ...opts.env,
    }))
      if (v !== undefined) env[k] = v;
    // Ink renders nothing live under CI.
    delete env.CI;
    delete env.CONTINUOUS_INTEGRATION;
    // A test run inside tmux or screen must not get the OSC 52 passthrough wrapping unless it asks.
    if (opts.env?.TMUX === undefined) delete env.TMUX;
    if (opts.env?.STY === undefined) delete env.STY;
    // The screens asserted on are in colour unless a test asks otherwise.
    if (opts.env?.NO_COLOR === undefined) delete env.NO_COLOR;
    const [file, argv] = opts.shell
      ? ['/bin/sh', ['-c', opts.shell]]
      : [process.execPath, [DAEMON, 'tui', ...args]];
    this.proc = pty.spawn(file, argv, {
      cols,
      rows,
      cwd: opts.cwd ?? process.cwd(),
      env,
      name: 'xterm-256color',
    });
    this.proc.onData((d) => {
      this.raw += d;
      this.pending = this.pending.then(() => new Promise<void>((r) => this.term.write(d, r)));
    });
    this.exited = new Promise((resolve) => this.proc.onExit((e) => resolve(e)));
  }

  /** The exit, or a failure when the program is still running after `ms`. */
  exitWithin(ms: number): Promise<{ exitCode: number; signal?: number }> {
    return Promise.race([
      this.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no exit within ${ms} ms`)), ms)),
    ]);
  }

  get pid(): number {
    return this.proc.pid;
  }

  /** The visible screen, one string per row, trailing spaces cut. */
  async lines(): Promise<string[]> {
    await this.pending;
    const buf = this.term.buffer.active;
    const out: string[] = [];
    for (let i = 0; i < this.term.rows; i++)
      out.push(buf.getLine(buf.viewportY + i)?.translateToString(true) ?? '');
    return out;
  }

  async screen(): Promise<string> {
    return (await this.lines()).join('\n');
  }

  /**
   * Waits until the screen matches; fails with the last screen. The default covers a TUI's first
   * frame on a loaded 2-core CI machine (Node, Ink and React start in a pty: seconds under load).
   */
  async waitFor(what: string | RegExp | ((screen: string) => boolean), timeoutMs = 15_000): Promise<string> {
    const test =
      typeof what === 'function'
        ? what
        : (s: string) => (typeof what === 'string' ? s.includes(what) : what.test(s));
    const end = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < end) {
      last = await this.screen();
      if (test(last)) return last;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${String(what)}; screen:\n${last}`);
  }

  write(keys: string): void {
    this.proc.write(keys);
  }

  resize(cols: number, rows: number): void {
    this.proc.resize(cols, rows);
    this.term.resize(cols, rows);
  }

  kill(signal = 'SIGTERM'): void {
    try {
      this.proc.kill(signal);
    } catch {
      // already gone
    }
  }

  /** The cell at (row, col), for colour checks. */
  async cell(row: number, col: number): Promise<xterm.IBufferCell | undefined> {
    await this.pending;
    const buf = this.term.buffer.active;
    return buf.getLine(buf.viewportY + row)?.getCell(col);
  }
}
