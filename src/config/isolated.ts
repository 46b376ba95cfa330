// Loads a configuration in a short-lived worker thread. Parsing a large job file allocates
// tens of MB that V8 keeps committed afterwards; doing it in a worker hands that memory back
// to the OS when the worker exits, and the daemon keeps only the (cloned) result.
import { Worker } from 'node:worker_threads';
import { parseCron } from '../schedule/index.ts';
import { errorText } from '../util/errors.ts';
import { ConfigError, type ConfigIssue } from './errors.ts';
import { type LoadOptions, loadConfig } from './load.ts';
import type { LoadedConfig } from './types.ts';

export const CONFIG_WORKER_TASK = 'cronstable:load-config';

export type WorkerReply =
  | { ok: true; config: LoadedConfig }
  | { ok: false; issues: ConfigIssue[] }
  | { ok: false; crash: string };

/** The worker side: runs inside the worker thread started by `loadConfigIsolated`. */
export function runConfigWorker(
  data: { path: string; opts: LoadOptions },
  reply: (r: WorkerReply) => void,
): void {
  try {
    reply({ ok: true, config: loadConfig(data.path, data.opts) });
  } catch (e) {
    if (e instanceof ConfigError) reply({ ok: false, issues: e.issues });
    else reply({ ok: false, crash: errorText(e, { stack: true }) });
  }
}

/**
 * Same contract as loadConfig (throws ConfigError). `entry` is the script that starts a
 * worker in loader mode (the CLI's own entry point); without one, or if the worker cannot
 * start, it loads in-process.
 */
export async function loadConfigIsolated(
  path: string,
  opts: LoadOptions,
  entry: string | undefined,
): Promise<LoadedConfig> {
  if (!entry) return loadConfig(path, opts);
  let reply: WorkerReply;
  try {
    reply = await new Promise<WorkerReply>((resolve, reject) => {
      const worker = new Worker(entry, {
        workerData: { task: CONFIG_WORKER_TASK, path, opts: { ...opts, cwd: opts.cwd ?? process.cwd() } },
        stdout: false,
        stderr: false,
      });
      worker.once('message', (m: WorkerReply) => {
        resolve(m);
        void worker.terminate();
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`config worker exited with code ${code}`)));
    });
  } catch {
    return loadConfig(path, opts);
  }
  if (reply.ok) return rehydrate(reply.config);
  if ('issues' in reply) throw new ConfigError(reply.issues);
  throw new Error(`loading the configuration failed: ${reply.crash}`);
}

/** Parsed schedules do not survive structured cloning intact; rebuild them from their text. */
function rehydrate(cfg: LoadedConfig): LoadedConfig {
  for (const job of cfg.jobs) if (job.cron) job.cron = parseCron(job.scheduleText, { hashKey: job.name });
  for (const dag of cfg.dags)
    if (dag.cron && dag.scheduleText) dag.cron = parseCron(dag.scheduleText, { hashKey: `dag:${dag.name}` });
  return cfg;
}
