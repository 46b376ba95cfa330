// The one port through which a run gets its job-API identity: a job's fire (the scheduler) and a DAG
// task instance (the DAG engine) both register here, with secrets they resolved themselves, and
// unregister when the run is recorded. The daemon hands the job API server (or null, without `state:`)
// to both; neither knows the server.
import type { RunCredentials, RunRegistration } from './server.ts';

export type { RunCredentials, RunRegistration };

export interface RunRegistry {
  /** Mints the run's bearer token and the environment to inject; throws once the server is stopping. */
  register(run: RunRegistration): RunCredentials;
  unregister(token: string): Promise<void>;
}
