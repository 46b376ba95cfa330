// What the web server reads from the running daemon. The daemon builds one WebContext and
// the server never reaches around it, so tests can run the server against a real scheduler.
import type { LoadedConfig } from '../config/types.ts';
import type { RunRecord, SlotRecord } from '../scheduler/history.ts';
import type { Scheduler } from '../scheduler/scheduler.ts';
import type { Store } from '../store/types.ts';
import type { Clock } from '../util/clock.ts';

export interface WebContext {
  version: string;
  hostname: string;
  clock: Clock;
  /** The config currently running (changes on reload). */
  config(): LoadedConfig;
  jobSetId(): string;
  /**
   * Jobs, status, history, live output, manual start/cancel:
   * `status()`, `history(name)`, `job(name)`, `startJob`, `cancelJob`, `subscribeOutput`, `running`.
   */
  scheduler: Scheduler;
  /** The durable store when a `state:` section is configured. */
  store: Store | null;
  /** Subscribe to every recorded run / slot outcome (metrics, live dashboard). */
  onRun(fn: (run: RunRecord) => void): () => void;
  onSlot(fn: (slot: SlotRecord) => void): () => void;
  /** The cluster view; single-node until the cluster issue. */
  cluster(): { enabled: boolean; nodeName: string; leader: string | null; peers: unknown[] };
}
