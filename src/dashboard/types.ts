// The JSON shapes of the web API the dashboard reads (spec 06 §5): the types the wire schemas in src/api/wire
// infer, imported type-only so neither bundle loads zod. `/cluster` and `/fleet` answer one of two variants
// (disabled or running); the dashboard reads them flattened (`Flat`), every field of the running variant
// optional, so a partial answer never breaks the page and no reader has to narrow first.

import type {
  FleetNode as ApiFleetNode,
  FleetJob as ApiJobSummary,
  NodeBody as ApiNode,
  NodeStats as ApiNodeStats,
  ClusterPeer as ApiPeer,
  ClusterBody,
  FleetBody,
  PeerStatus,
} from '../api/wire/core.schema.ts';
import type {
  ScheduleFinding as ApiFinding,
  JobHistoryEntry as ApiHistoryEntry,
  RunObject as ApiRun,
  ApiRunStats,
  JobRuns as ApiRuns,
  JobRow,
  RunOutcome as Outcome,
} from '../api/wire/jobs.schema.ts';
import type { ActivityBody as ApiActivity, SummaryBody as ApiSummary } from '../api/wire/overview.schema.ts';

export type {
  ApiActivity,
  ApiFinding,
  ApiFleetNode,
  ApiHistoryEntry,
  ApiJobSummary,
  ApiNode,
  ApiNodeStats,
  ApiPeer,
  ApiRun,
  ApiRunStats,
  ApiRuns,
  ApiSummary,
  Outcome,
  PeerStatus,
};

type KeysOfAny<U> = U extends unknown ? keyof U : never;
type ValueOf<U, K extends PropertyKey> = U extends unknown ? (K extends keyof U ? U[K] : never) : never;

/**
 * A union of payload variants read as one object: the keys every variant has are required, with the union of
 * their types; the keys only some variants have are optional. (`Extract<keyof U, PropertyKey>` rather than
 * `keyof U` keeps the mapped type from distributing over the variants.)
 */
export type Flat<U> = { [K in Extract<keyof U, PropertyKey>]: ValueOf<U, K> } & {
  [K in Exclude<KeysOfAny<U>, keyof U>]?: ValueOf<U, K>;
};

/**
 * One `GET /jobs` row. `schedule_findings` may be absent: from a daemon older than the load-time linter the
 * dashboards lint the schedule themselves (engine.ts `lintJob`).
 */
export type ApiJob = Omit<JobRow, 'schedule_findings'> & Partial<Pick<JobRow, 'schedule_findings'>>;

/** `GET /cluster` (spec 05 §12.1): `{enabled: false, peers: []}` without a running backend, else the view. */
export type ApiCluster = Flat<ClusterBody>;

/** `GET /fleet` (spec 05 §11): `{enabled: false, nodes: []}` without a gossip mesh. */
export type ApiFleet = Flat<FleetBody>;
