// The dashboard's polling (spec 06 §9.1): `/jobs` on every tick, then `/cluster`, `/node` and, while the fleet
// view is open, `/fleet`; `/version` and `/job-set-id` once (again after a token change until they answer).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { parseJobSetId } from '../../dashboard/format.ts';
import { pollPeriodMs } from '../../dashboard/hidden.ts';
import type { RefreshChoice } from '../../dashboard/settings.ts';
import type { ApiCluster, ApiFleet, ApiJob, ApiNode } from '../../dashboard/types.ts';
import { type Api, HttpError } from '../io/api.ts';
import { usePolling } from '../io/hooks.ts';

export interface Poll {
  jobs: ApiJob[] | null;
  /** epoch ms of the last answered `/jobs`, 0 before the first */
  fetchedAt: number;
  pollFailed: boolean;
  /** a 401 paused polling until a token is entered */
  locked: boolean;
  cluster: ApiCluster | null;
  node: ApiNode | null;
  fleet: ApiFleet | null;
  version: string | null;
  jobSetId: string | null;
  /** polls at once (and re-asks for the version and job-set id while they are missing) */
  refreshNow(): void;
  unlock(): void;
}

/**
 * `interval` is the refresh choice in seconds or 'paused'; a hidden tab polls at most every 30 s and polls once
 * when it shows again (spec 10 §5.2). Any 401 calls `onUnauthorized` and locks.
 */
export function usePoll(
  api: Api,
  interval: RefreshChoice,
  hidden: boolean,
  fleetView: boolean,
  onUnauthorized: () => void,
): Poll {
  const [jobs, setJobs] = useState<ApiJob[] | null>(null);
  const [fetchedAt, setFetchedAt] = useState(0);
  const [pollFailed, setPollFailed] = useState(false);
  const [locked, setLocked] = useState(false);
  const [version, setVersion] = useState<string | null>(null);
  const [jobSetId, setJobSetId] = useState<string | null>(null);
  const [cluster, setCluster] = useState<ApiCluster | null>(null);
  const [node, setNode] = useState<ApiNode | null>(null);
  const [fleet, setFleet] = useState<ApiFleet | null>(null);
  const [pollNonce, setPollNonce] = useState(0);
  const fleetOpen = useRef(fleetView);
  fleetOpen.current = fleetView;
  // Read before each wait: hiding the tab slows the loop without an extra poll, showing it polls at once (below).
  const period = useRef(pollPeriodMs(interval, hidden));
  period.current = pollPeriodMs(interval, hidden);
  const unauthorized = useRef(onUnauthorized);
  unauthorized.current = onUnauthorized;

  // Any 401 opens the token prompt and pauses polling until a token is entered.
  useEffect(() => {
    api.onUnauthorized = () => {
      setLocked(true);
      unauthorized.current();
    };
  }, [api]);

  // Refresh tick: /jobs, then /cluster and /node.
  usePolling(
    async (live) => {
      try {
        const data = await api.json<ApiJob[]>('/jobs');
        if (!live()) return;
        const t = Date.now();
        setJobs(data);
        setFetchedAt(t);
        setPollFailed(false);
        setLocked(false);
        api
          .json<ApiCluster>('/cluster')
          .then((c) => {
            if (live()) setCluster(c);
          })
          .catch(() => {});
        if (fleetOpen.current) {
          api
            .json<ApiFleet>('/fleet')
            .then((f) => {
              if (live()) setFleet(f);
            })
            .catch(() => {});
        }
        api
          .json<ApiNode>('/node')
          .then((n) => {
            if (live()) setNode(n);
          })
          .catch(() => {});
      } catch (err) {
        if (!live()) return;
        if (err instanceof HttpError && err.status === 401) return 'pause'; // resumes when a token is set
        setPollFailed(true);
      }
    },
    () => period.current,
    [api, interval, pollNonce],
  );

  // Once (and again after a token is entered until it works): version and job-set id.
  useEffect(() => {
    if (version === null) {
      api
        .text('/version')
        .then((v) => setVersion(v.trim()))
        .catch(() => {});
    }
    if (jobSetId === null) {
      api
        .text('/job-set-id', 'application/json')
        .then((body) => setJobSetId(parseJobSetId(body)))
        .catch(() => {});
    }
  }, [api, pollNonce]);

  const refreshNow = useCallback(() => setPollNonce((n) => n + 1), []);
  const unlock = useCallback(() => setLocked(false), []);

  const wasHidden = useRef(hidden);
  useEffect(() => {
    if (wasHidden.current && !hidden && interval !== 'paused') refreshNow();
    wasHidden.current = hidden;
  }, [hidden]);

  // Opening the fleet view fetches at once rather than at the next tick.
  useEffect(() => {
    if (fleetView) refreshNow();
  }, [fleetView]);

  return { jobs, fetchedAt, pollFailed, locked, cluster, node, fleet, version, jobSetId, refreshNow, unlock };
}
