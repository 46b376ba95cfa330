// A `/jobs` entry as the dashboard receives it, for the dashboard's unit tests: a plain UTC job that
// has never run, with any field overridden.
import type { ApiJob } from '../../src/dashboard/types.ts';

/** A runtime pause record as `/jobs` carries it (spec 10 §1.5): an hour from 08:00 UTC, by the API. */
export const PAUSED: NonNullable<ApiJob['paused']> = {
  since: '2026-07-05T08:00:00Z',
  until: '2026-07-05T10:00:00Z',
  by: 'api',
  note: '',
  channel: 'api',
};

export function apiJob(name: string, over: Partial<ApiJob> = {}): ApiJob {
  return {
    name,
    enabled: true,
    schedule: '*/5 * * * *',
    command: `echo ${name}`,
    captureStdout: true,
    captureStderr: true,
    utc: true,
    timezone: 'UTC',
    running: false,
    pids: [],
    scheduled_in: 60,
    never_fires: false,
    last_run: null,
    history: [],
    ...over,
  };
}
