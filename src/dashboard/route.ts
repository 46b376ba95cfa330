// Where the dashboard is: the view and the open job drawer (which job, which tab). The web dashboard keeps it in
// the URL hash (`#week/job/backup/history`), so a link can point at a job's logs; the terminal dashboard opens
// the same places from its keys and `--job`.
import { isScheduleView, type ScheduleView } from './scheduleviews.ts';

export type DrawerTab = 'logs' | 'history' | 'schedule' | 'resources';
export const DRAWER_TABS: readonly DrawerTab[] = ['logs', 'history', 'schedule', 'resources'];

/** Views of the incident tools (issue 13): the multi-tail and the wallboard. */
export type IncidentView = 'tail' | 'tv';
const INCIDENT_VIEWS: readonly string[] = ['tail', 'tv'];

export interface Route {
  view: 'jobs' | 'week' | 'fleet' | IncidentView | ScheduleView;
  drawer: { name: string; tab: DrawerTab } | null;
}

/** Reads a URL hash (`#heat/job/nightly%20backup/history`); anything unknown falls back to the jobs view / logs tab. */
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#/, '').split('/').filter(Boolean);
  let view: Route['view'] = 'jobs';
  if (
    parts[0] === 'week' ||
    parts[0] === 'fleet' ||
    INCIDENT_VIEWS.includes(parts[0] ?? '') ||
    isScheduleView(parts[0])
  ) {
    view = parts[0] as Route['view'];
    parts.shift();
  }
  let drawer: Route['drawer'] = null;
  if (parts[0] === 'job' && parts[1] !== undefined) {
    let name = parts[1];
    try {
      name = decodeURIComponent(name);
    } catch {
      // keep the raw text
    }
    const tab = DRAWER_TABS.includes(parts[2] as DrawerTab) ? (parts[2] as DrawerTab) : 'logs';
    drawer = { name, tab };
  }
  return { view, drawer };
}

/** The hash for a route: `''` for the bare jobs view, job names percent-encoded. */
export function formatRoute(route: Route): string {
  const parts: string[] = [];
  if (route.view !== 'jobs') parts.push(route.view);
  if (route.drawer !== null) parts.push('job', encodeURIComponent(route.drawer.name), route.drawer.tab);
  return parts.length === 0 ? '' : `#${parts.join('/')}`;
}
