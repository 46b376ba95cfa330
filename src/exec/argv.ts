// Which program runs, with which arguments (spec 02 §3.1). Pure.

export interface Argv {
  file: string;
  args: string[];
}

/** POSIX default command shell, used for a string command when `shell` is empty. */
export const DEFAULT_SHELL = '/bin/sh';

/**
 * A list is executed verbatim (no shell); a string runs as `[shell, '-c', S]` with the shell
 * path taken whole (never split on spaces), or `/bin/sh -c S` when `shell` is empty.
 */
export function commandArgv(command: string | readonly string[], shell: string): Argv {
  if (typeof command !== 'string') {
    const [file = '', ...args] = command;
    return { file, args };
  }
  return { file: shell === '' ? DEFAULT_SHELL : shell, args: ['-c', command] };
}
