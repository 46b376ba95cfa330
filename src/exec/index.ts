// Process execution: launch one run of a job or DAG task and judge it (spec 02 §3-§6, §13).
export { type Argv, commandArgv, DEFAULT_SHELL } from './argv.ts';
export { type CaptureOutputs, type CaptureSettings, StreamCapture } from './capture.ts';
export { spawnInThread } from './child.ts';
export { buildEnvironment } from './env.ts';
export { exitCodeOf, LAUNCH_FAILURE_EXIT_CODE, TIMEOUT_EXIT_CODE } from './exitcode.ts';
export { failReason, type RunOutcomeFacts } from './failswhen.ts';
export { decodeLine, LineSplitter, type SplitEvent } from './lines.ts';
export { formatStreamPrefix, streamPrefixProblem } from './prefix.ts';
export { REDACTED, redactLine, redactLines } from './redact.ts';
export { discardMarker, Retention } from './retain.ts';
export { BoundedQueue } from './ring.ts';
export { DRAIN_AFTER_KILL_MS, LIVE_RING_SIZE, launch } from './run.ts';
export { SpawnLoad } from './spawn-policy.ts';
export { adaptiveSpawner, defaultSpawner, expectLaunches, SpawnerSet } from './spawner.ts';
export { SPAWNER_IDLE_MS, SpawnerProcess, type SpawnerProcessOptions } from './spawner-process.ts';
export type {
  CancelReason,
  ChildEvents,
  ChildPort,
  LaunchOptions,
  LaunchSpec,
  OutputLine,
  RunHandle,
  RunResult,
  Spawner,
  SpawnRequest,
  StreamName,
} from './types.ts';
