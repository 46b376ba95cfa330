// A task launches exactly like a job run (spec 04 §2.3): its launch settings, under `<dag>.<task>`.
import { niceOf } from '../../config/launch-place.ts';
import type { DagTaskConfig } from '../../config/types.ts';
import type { LaunchSpec } from '../../exec/types.ts';

export function launchSpecOfTask(task: DagTaskConfig): LaunchSpec {
  return {
    name: task.launchName,
    command: task.command ?? '',
    shell: task.shell,
    captureStdout: task.captureStdout,
    captureStderr: task.captureStderr,
    saveLimit: task.saveLimit,
    maxLineLength: task.maxLineLength,
    streamPrefix: task.streamPrefix,
    failsWhen: task.failsWhen,
    executionTimeout: task.executionTimeout,
    killTimeout: task.killTimeout,
    environment: task.effectiveEnvironment,
    hasEnvFile: task.env_file !== null,
    runAs: task.runAs,
    workingDirectory: task.workingDirectory,
    nice: niceOf(task.priority),
  };
}
