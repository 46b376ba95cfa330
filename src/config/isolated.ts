// Loads a large configuration in a short-lived worker thread. Parsing a large job file allocates
// tens of MB that V8 keeps committed afterwards; doing it in a worker hands that memory back
// to the OS when the worker exits, and the daemon keeps only the (cloned) result. A small file is
// parsed in-process: the worker's own isolate costs more than the parse it isolates.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { parseCron } from '../schedule/index.ts';
import { errorText } from '../util/errors.ts';
import { getLogger } from '../util/log.ts';
import { ConfigError, type ConfigIssue } from './errors.ts';
import { isDirectoryEntryLoaded } from './files.ts';
import { type LoadOptions, loadConfig } from './load.ts';
import type { LoadedConfig } from './types.ts';

export const CONFIG_WORKER_TASK = 'cronstable:load-config';

/**
 * From this many bytes of job files on, the daemon parses in a worker thread. Below it the worker
 * costs more than it returns: its isolate and its copy of the program take ~0.15 CPU-s and ~125 ms
 * of a daemon's start, and on Node 20 a daemon that parsed 1,000 jobs (205 KB) in-process is 5-6
 * MB smaller 4 s and 8 s after its start than one that used the worker; at 3,000 jobs (620 KB)
 * the worker leaves it 6 MB smaller (bench/RESULTS.md, "Config worker").
 */
export const WORKER_FROM_BYTES = 256 * 1024;

/**
 * What `path` weighs: the bytes of its job files (the file itself, or a directory's loaded
 * entries) and of the files their `include:` lists name, followed down. `unknown` when an include
 * list is not the plain block list of paths this reads without parsing YAML: the worker is then
 * used, as for a large set. `bytes` is 0 when nothing can be read (the loader then says why).
 */
export function configWeight(path: string): { bytes: number; unknown: boolean } {
  const acc = { bytes: 0, unknown: false };
  const seen = new Set<string>();
  try {
    if (statSync(path).isDirectory())
      for (const name of readdirSync(path).filter(isDirectoryEntryLoaded)) weigh(join(path, name), seen, acc);
    else weigh(path, seen, acc);
  } catch {
    // cannot be read: the loader says why
  }
  return acc;
}

/** A top-level `include:` key and the block list under it (comments and blank lines allowed). */
const INCLUDE_BLOCK = /^include[ \t]*:[ \t]*(?:#.*)?\r?\n((?:[ \t]+-.*(?:\r?\n|$)|[ \t]*(?:#.*)?\r?\n)*)/m;
const INCLUDE_KEY = /^include[ \t]*:/m;
/** One list item: a bare path or a simply quoted one, an optional comment after it. */
const INCLUDE_ITEM = /^[ \t]+-[ \t]+(?:"([^"\\]*)"|'([^']*)'|([^\s#'"{}[\],&*!|>%@`][^#]*?))[ \t]*(?:#.*)?$/;

function weigh(file: string, seen: Set<string>, acc: { bytes: number; unknown: boolean }): void {
  const abs = resolve(file);
  if (seen.has(abs) || acc.unknown || acc.bytes >= WORKER_FROM_BYTES) return;
  seen.add(abs);
  let text: string;
  try {
    const st = statSync(abs);
    // a device, FIFO or socket is never read here (the loader refuses it, with its own limits)
    if (!st.isFile()) return;
    acc.bytes += st.size;
    if (acc.bytes >= WORKER_FROM_BYTES) return;
    text = readFileSync(abs, 'utf8');
  } catch {
    return; // an entry that vanished or cannot be read: the loader names it
  }
  if (!INCLUDE_KEY.test(text)) return;
  const block = INCLUDE_BLOCK.exec(text);
  if (!block) {
    acc.unknown = true;
    return;
  }
  for (const line of block[1]!.split(/\r?\n/)) {
    if (!/^[ \t]+-/.test(line)) continue;
    const item = INCLUDE_ITEM.exec(line);
    const entry = item ? (item[1] ?? item[2] ?? item[3]) : undefined;
    if (!entry) {
      acc.unknown = true;
      return;
    }
    weigh(isAbsolute(entry) ? entry : join(dirname(abs), entry), seen, acc);
  }
}

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
 * worker in loader mode (the CLI's own entry point); without one, for job files (includes
 * counted) under WORKER_FROM_BYTES, or if the worker cannot start, it loads in-process.
 */
export async function loadConfigIsolated(
  path: string,
  opts: LoadOptions,
  entry: string | undefined,
): Promise<LoadedConfig> {
  if (!entry) return loadConfig(path, opts);
  const weight = configWeight(path);
  if (weight.bytes < WORKER_FROM_BYTES && !weight.unknown) return loadConfig(path, opts);
  getLogger('cronstable').debug(
    weight.unknown
      ? 'configuration: an include list read only by parsing, so parsed in a worker thread'
      : `configuration: ${weight.bytes} bytes of job files or more, parsed in a worker thread`,
  );
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
