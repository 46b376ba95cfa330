// The daemon's durable side: the store, the loopback job API and the store-backed scheduler
// features, started together from the `state:` section (spec 03 §1, §6, §8).
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { StateSection } from '../config/file-schema.ts';
import { JobApiServer } from '../jobapi/server.ts';
import { DurableFeatures } from '../scheduler/durable.ts';
import { DB_FILE } from '../store/connection.ts';
import { openStore } from '../store/index.ts';
import type { Store } from '../store/types.ts';
import type { Clock } from '../util/clock.ts';
import { errorText } from '../util/errors.ts';
import type { Logger } from '../util/log.ts';

export interface StateServices {
  store: Store;
  jobApi: JobApiServer | null;
  durable: DurableFeatures;
  stop(): Promise<void>;
}

export async function startStateServices(
  state: StateSection,
  opts: { clock: Clock; log: Logger; host: string; workerEntry?: string },
): Promise<StateServices> {
  const api = state.jobApi ?? {};
  const existed = existsSync(join(resolve(state.path), DB_FILE));
  const store = await openStore({
    path: state.path,
    namespace: state.deploymentId || 'default',
    topology: state.topology ?? 'auto',
    maxOpsPerSecond: state.maxOpsPerSecond ?? 0,
    workerEntry: opts.workerEntry,
    placement: 'auto',
    writer: `${opts.host}#${process.pid}`,
    onFault: (level, message) =>
      level === 'error' ? opts.log.error(`state: ${message}`) : opts.log.info(`state: ${message}`),
  });
  const unwritable = probeWritable(store.path);
  if (unwritable)
    opts.log.warning(
      `state: the store directory ${store.path} is not writable (${unwritable}): durable writes fail until it is`,
    );
  if (!existed) opts.log.info(`state: no store at ${store.path}: created a new empty one`);
  opts.log.info(`state: store at ${store.path} (namespace ${store.namespace}, topology ${store.topology})`);
  let jobApi: JobApiServer | null = null;
  if (api.enabled ?? true) {
    jobApi = await JobApiServer.start({
      store,
      listen: api.listen ?? undefined,
      tls: api.tls ?? null,
      maxValueBytes: api.maxValueBytes ?? 1_048_576,
      maxArtifactBytes: api.maxArtifactBytes ?? 67_108_864,
      lockTtlSeconds: api.lockTtlSeconds ?? 30,
      host: opts.host,
      logger: opts.log,
    });
    opts.log.info(`state: job API listening on ${jobApi.url}`);
  }
  const durable = new DurableFeatures({
    store,
    registry: jobApi,
    clock: opts.clock,
    log: opts.log,
    host: opts.host,
    onStoreUnavailable: state.onStoreUnavailable ?? 'degrade',
    maxRunsPerJob: state.maxRunsPerJob ?? 1000,
    slotTtlSeconds: state.slotTtlSeconds ?? 30,
  });
  return {
    store,
    jobApi,
    durable,
    async stop() {
      await jobApi?.stop();
      await store.close();
    },
  };
}

/**
 * Creates and removes a probe file: the only test that holds for root too (access(2) says yes
 * to root on a read-only mode, and an immutable or read-only-mounted directory still refuses).
 */
function probeWritable(dir: string): string | null {
  const probe = join(dir, `.cronstable-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    closeSync(openSync(probe, 'wx', 0o600));
    unlinkSync(probe);
    return null;
  } catch (e) {
    return errorText(e);
  }
}
