// The run-time side of `workingDirectory` and `priority` (spec 09 §3.2-§3.3).
import { statSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Renices a just-spawned child. Node's spawn returns once the child has exec'd, before the
 * command had a chance to fork, so its later children inherit the value. A refusal (no
 * CAP_SYS_NICE or RLIMIT_NICE headroom) or a vanished process never fails the run.
 */
export function applyNice(pid: number, nice: number): void {
  try {
    setPriority(pid, nice);
  } catch {
    // The job runs at the priority it inherited (spec 09 §3.3).
  }
}

/** Why a launch in `dir` cannot work, or null when the directory looks enterable. */
export function directoryProblem(dir: string): string | null {
  try {
    if (!statSync(dir).isDirectory()) return `working directory '${dir}' is not a directory`;
    return null;
  } catch (e) {
    const code = typeof e === 'object' && e !== null && 'code' in e ? String(e.code) : 'error';
    return code === 'ENOENT'
      ? `working directory '${dir}' does not exist`
      : `working directory '${dir}' cannot be entered [${code}]`;
  }
}
