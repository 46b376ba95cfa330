// The main area below the toolbar and banners: the view the route names, or the loading card before the first
// `/jobs` answer.

import type { DrawerTab, Route } from '../../dashboard/route.ts';
import type { ApiCluster, ApiFleet, ApiJob } from '../../dashboard/types.ts';
import { LoadingCard } from '../chrome/LoadingCard.tsx';
import type { Api } from '../io/api.ts';
import { Board, type BoardProps } from '../views/board/Board.tsx';
import { ClusterPanel } from '../views/cluster/ClusterPanel.tsx';
import { FleetView } from '../views/fleet/FleetView.tsx';
import { HeatView } from '../views/heat/HeatView.tsx';
import { PressureView } from '../views/pressure/PressureView.tsx';
import { RadarView } from '../views/radar/RadarView.tsx';
import { StateInspector } from '../views/state/StateInspector.tsx';
import { MultiTail } from '../views/tail/MultiTail.tsx';
import { WeekCalendar } from '../views/week/WeekCalendar.tsx';

export interface MainViewProps {
  api: Api;
  view: Route['view'];
  jobs: ApiJob[] | null;
  now: number;
  /** refresh period in ms, Infinity when paused */
  intervalMs: number;
  locked: boolean;
  pollFailed: boolean;
  onUnlock(): void;
  openJob(name: string, tab: DrawerTab): void;
  tail: { names: string[]; onNames(names: string[]): void };
  /** the enabled cluster, else null */
  cluster: ApiCluster | null;
  fleet: ApiFleet | null;
  board: Omit<BoardProps, 'api' | 'jobs' | 'now' | 'cluster'>;
}

export function MainView(p: MainViewProps) {
  const { api, jobs, now, openJob } = p;
  if (jobs === null) return <LoadingCard locked={p.locked} failed={p.pollFailed} onUnlock={p.onUnlock} />;
  switch (p.view) {
    case 'week':
      return <WeekCalendar jobs={jobs} now={now} api={api} onOpen={(name) => openJob(name, 'schedule')} />;
    case 'tail':
      return (
        <MultiTail
          jobs={jobs}
          api={api}
          names={p.tail.names}
          onNames={p.tail.onNames}
          onOpen={(name) => openJob(name, 'logs')}
        />
      );
    case 'radar':
      return <RadarView jobs={jobs} now={now} onOpen={(name) => openJob(name, 'schedule')} />;
    case 'pressure':
      return <PressureView api={api} onOpen={(name) => openJob(name, 'schedule')} />;
    case 'heat':
      return <HeatView jobs={jobs} now={now} api={api} onOpen={(name) => openJob(name, 'history')} />;
    case 'state':
      return <StateInspector api={api} jobs={jobs} intervalMs={p.intervalMs} />;
    case 'fleet':
      return (
        <>
          {p.cluster && <ClusterPanel cluster={p.cluster} jobs={jobs} onFleet={null} />}
          <FleetView fleet={p.fleet} jobs={jobs} now={now} onOpen={(name) => openJob(name, 'logs')} />
        </>
      );
    default:
      return <Board {...p.board} api={api} jobs={jobs} now={now} cluster={p.cluster} />;
  }
}
