// Exit status → recorded code (spec 02 §5.4). Pure.
import { constants } from 'node:os';

export const TIMEOUT_EXIT_CODE = -100;
export const LAUNCH_FAILURE_EXIT_CODE = 127;

/** The exit status, or the negative signal number when killed by a signal (-1 if neither is known). */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  if (signal !== null) {
    const num = (constants.signals as Record<string, number | undefined>)[signal];
    return num === undefined ? -1 : -num;
  }
  return -1;
}
