// Where a command writes: the process streams in production, buffers in tests.
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}
