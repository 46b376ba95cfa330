// Where a command writes: the process streams in production, buffers in tests.
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /**
   * What to do when the reader of our output goes away (EPIPE): by default the command exits 0
   * at once; a long-running command (the daemon) installs a graceful stop instead.
   */
  onBrokenPipe?: (stop: () => void) => void;
}
