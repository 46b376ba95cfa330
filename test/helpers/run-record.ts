// A finished successful run of `job` lasting `durationSeconds` (null: unknown), every other field
// neutral: what the calendar's typical-runtime estimate reads from history.
import type { RunRecord } from '../../src/scheduler/history.ts';

export function succeededRun(job: string, durationSeconds: number | null): RunRecord {
  return {
    id: 'r',
    job,
    trigger: 'schedule',
    attempt: 0,
    scheduledAt: null,
    outcome: 'success',
    exitCode: 0,
    startedAt: 0,
    finishedAt: 0,
    durationSeconds,
    failReason: null,
    startFailed: false,
    stdout: null,
    stderr: null,
    lines: [],
  };
}
