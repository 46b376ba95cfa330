// failsWhen: the verdict on a finished run (spec 02 §6). Pure.
import type { FailsWhen } from '../config/types.ts';

export interface RunOutcomeFacts {
  exitCode: number;
  /** Retained text; null when the stream was not captured (never trips the output checks). */
  stdout: string | null;
  stderr: string | null;
  stdoutDiscarded: number;
  stderrDiscarded: number;
}

/** The first matching `fail_reason`, or null for success. */
export function failReason(failsWhen: FailsWhen, facts: RunOutcomeFacts): string | null {
  if (failsWhen.always) return 'failsWhen=always';
  if (failsWhen.nonzeroReturn && facts.exitCode !== 0) {
    return `failsWhen=nonzeroReturn and retcode=${facts.exitCode}`;
  }
  if (failsWhen.producesStdout && produced(facts.stdout, facts.stdoutDiscarded)) {
    return 'failsWhen=producesStdout and stdout is not empty';
  }
  if (failsWhen.producesStderr && produced(facts.stderr, facts.stderrDiscarded)) {
    return 'failsWhen=producesStderr and stderr is not empty';
  }
  return null;
}

function produced(text: string | null, discarded: number): boolean {
  return text !== null && (text.length > 0 || discarded > 0);
}
