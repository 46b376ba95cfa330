// The dashboard shell: polling (spec 06 §9.1), routing, selection and keyboard, and the views.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { clusterAlert, isLeaseBackend, roleText, showOwnerColumn } from '../../../dashboard/cluster.ts';
import {
  formatColumns,
  type OptionalColumn,
  parseColumns,
  toggleColumn,
} from '../../../dashboard/columns.ts';
import type { Command } from '../../../dashboard/commands.ts';
import { compileJob, nextFireOf } from '../../../dashboard/engine.ts';
import {
  cycleTheme,
  failureNotice,
  flipLightDark,
  newFailures,
  ON_OFF,
  type OnOff,
  ROW_HEIGHTS,
} from '../../../dashboard/settings.ts';
import { failureBanner, summarize } from '../../../dashboard/status.ts';
import {
  filterRows,
  type Row,
  type Segment,
  SORT_KEYS,
  type SortKey,
  sortRows,
  toRows,
} from '../../../dashboard/table.ts';
import type { ApiCluster, ApiFleet, ApiJob, ApiNode } from '../../../dashboard/types.ts';
import { type Api, HttpError } from './api.ts';
import { coreCommands, jobCommands, pageCommands } from './appCommands.ts';
import { ClusterAlertBanner } from './ClusterAlertBanner.tsx';
import { ClusterPanel } from './ClusterPanel.tsx';
import { ColumnChooser } from './ColumnChooser.tsx';
import { CommandPalette } from './CommandPalette.tsx';
import { DagCard } from './DagCard.tsx';
import { Drawer } from './Drawer.tsx';
import { FailureBanner } from './FailureBanner.tsx';
import { FleetView } from './FleetView.tsx';
import { type Connection, Header } from './Header.tsx';
// ui-schedule: schedule views, state inspector, sandbox and node card
import { HeatView } from './HeatView.tsx';
import { HelpDialog } from './HelpDialog.tsx';
import { copyText, type DrawerTab, type Route, useNow, usePref, useRoute } from './hooks.ts';
import { IncidentTimeline } from './IncidentTimeline.tsx';
import { JobsTable } from './JobsTable.tsx';
import { MitigateConsole } from './MitigateConsole.tsx';
import { MultiTail } from './MultiTail.tsx';
import { NodeHistoryHost, openNodeHistory } from './NodeHistory.tsx';
import { OverloadBanner } from './OverloadBanner.tsx';
import { PressureView } from './PressureView.tsx';
import { RadarView } from './RadarView.tsx';
import { openSandbox, SandboxHost } from './Sandbox.tsx';
import { type NotifyState, SettingsDialog } from './SettingsDialog.tsx';
import { StateInspector, useStateProbe } from './StateInspector.tsx';
import { Toasts, useToasts } from './Toasts.tsx';
import { TokenDialog } from './TokenDialog.tsx';
import { REFRESH_CHOICES, type RefreshChoice, Toolbar } from './Toolbar.tsx';
import { useLook, useTheme } from './theme.ts';
import { Wallboard } from './Wallboard.tsx';
import { WeekCalendar } from './WeekCalendar.tsx';

function notificationState(pref: OnOff): NotifyState {
  if (typeof Notification === 'undefined') return 'unsupported';
  if (Notification.permission === 'denied') return 'denied';
  return pref === 'on' && Notification.permission === 'granted' ? 'on' : 'off';
}

export function App({ api }: { api: Api }) {
  const now = useNow();
  const [route, setRoute] = useRoute();
  const [jobs, setJobs] = useState<ApiJob[] | null>(null);
  const [fetchedAt, setFetchedAt] = useState(0);
  const [pollFailed, setPollFailed] = useState(false);
  const [locked, setLocked] = useState(false);
  const [tokenDialog, setTokenDialog] = useState<{ rejected: boolean } | null>(null);
  const [version, setVersion] = useState<string | null>(null);
  const [jobSetId, setJobSetId] = useState<string | null>(null);
  const [cluster, setCluster] = useState<ApiCluster | null>(null);
  const [node, setNode] = useState<ApiNode | null>(null);
  const [fleet, setFleet] = useState<ApiFleet | null>(null);
  const [filter, setFilter] = useState('');
  const [segment, setSegment] = useState<Segment>('all');
  const [sortKey, setSortKey] = usePref<SortKey>('sort', 'status', SORT_KEYS);
  const [sortDir, setSortDir] = usePref<'asc' | 'desc'>('sortDir', 'asc', ['asc', 'desc']);
  const [refresh, setRefresh] = usePref<RefreshChoice>('refresh', '3', REFRESH_CHOICES);
  const [selected, setSelected] = useState<string | null>(null);
  const [help, setHelp] = useState(false);
  const [pollNonce, setPollNonce] = useState(0);
  // dag-gaps: the DAG card reports how many DAGs `/dags` lists; the ⧉ dags button shows it or hides it.
  const [dagCount, setDagCount] = useState(0);
  const [dagsShown, setDagsShown] = useState(true);
  // Incident tools (issue 13): the timeline / mitigate dialogs and the multi-tail's streams.
  const [incident, setIncident] = useState<'timeline' | 'mitigate' | 'run-failing' | null>(null);
  const [tailNames, setTailNames] = useState<string[]>([]);
  const [theme, themePref, setThemePref] = useTheme();
  const look = useLook();
  // --- chrome (issue 13 item 6): palette, settings, optional columns, notifications
  const [palette, setPalette] = useState(false);
  const [settings, setSettings] = useState(false);
  const [colsPref, setColsPref] = usePref<string>('cols', '');
  const cols = useMemo(() => parseColumns(colsPref), [colsPref]);
  const toggleCol = useCallback(
    (id: OptionalColumn) => setColsPref(formatColumns(toggleColumn(parseColumns(colsPref), id))),
    [colsPref],
  );
  const [notifyPref, setNotifyPref] = usePref<OnOff>('notify', 'off', ON_OFF);
  const [, setNotifyNonce] = useState(0);
  const registry = pageCommands;
  // Through a ref: a second key press can arrive before the keyboard effect re-subscribes.
  const themeRef = useRef(theme);
  themeRef.current = theme;
  const toggleTheme = useCallback(() => setThemePref(flipLightDark(themeRef.current)), [setThemePref]);
  const nextTheme = useCallback(() => setThemePref(cycleTheme(themeRef.current)), [setThemePref]);
  const prevJobs = useRef<ApiJob[] | null>(null);
  // --- end chrome
  const [toasts, toast] = useToasts();
  const filterRef = useRef<HTMLInputElement>(null);
  const fleetOpen = useRef(route.view === 'fleet');
  fleetOpen.current = route.view === 'fleet';

  // Any 401 opens the token prompt and pauses polling until a token is entered.
  useEffect(() => {
    api.onUnauthorized = () => {
      setLocked(true);
      setTokenDialog((d) => d ?? { rejected: api.hasToken() });
    };
  }, [api]);

  // Refresh tick: /jobs, then /cluster and /node.
  useEffect(() => {
    let stopped = false;
    let timer = 0;
    const tick = async (): Promise<void> => {
      try {
        const data = await api.json<ApiJob[]>('/jobs');
        if (stopped) return;
        const t = Date.now();
        setJobs(data);
        setFetchedAt(t);
        setPollFailed(false);
        setLocked(false);
        api
          .json<ApiCluster>('/cluster')
          .then((c) => {
            if (!stopped) setCluster(c);
          })
          .catch(() => {});
        if (fleetOpen.current) {
          api
            .json<ApiFleet>('/fleet')
            .then((f) => {
              if (!stopped) setFleet(f);
            })
            .catch(() => {});
        }
        api
          .json<ApiNode>('/node')
          .then((n) => {
            if (!stopped) setNode(n);
          })
          .catch(() => {});
      } catch (err) {
        if (stopped) return;
        if (err instanceof HttpError && err.status === 401) return; // resumes when a token is set
        setPollFailed(true);
      }
      if (!stopped && refresh !== 'paused') timer = window.setTimeout(tick, Number(refresh) * 1000);
    };
    void tick();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [api, refresh, pollNonce]);

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
        .then((body) => {
          try {
            const parsed = JSON.parse(body) as { job_set_id?: string };
            setJobSetId(parsed.job_set_id ?? null);
          } catch {
            setJobSetId(body.trim() || null);
          }
        })
        .catch(() => {});
    }
  }, [api, pollNonce]);

  const refreshNow = useCallback(() => setPollNonce((n) => n + 1), []);
  // ui-schedule: `/state` on each tick until it first answers (spec 06 §9.1)
  const stateProbe = useStateProbe(api, fetchedAt);
  const stateEnabled = stateProbe?.enabled === true;

  // Opening the fleet view fetches at once rather than at the next tick.
  useEffect(() => {
    if (route.view === 'fleet') refreshNow();
  }, [route.view === 'fleet']);

  const rows = useMemo(() => (jobs === null ? [] : toRows(jobs, fetchedAt)), [jobs, fetchedAt]);
  const shown = useMemo(
    () => sortRows(filterRows(rows, filter, segment), sortKey, sortDir === 'desc'),
    [rows, filter, segment, sortKey, sortDir],
  );
  const summary = useMemo(() => (jobs === null ? null : summarize(jobs)), [jobs]);
  const banner = useMemo(() => (jobs === null ? null : failureBanner(jobs)), [jobs]);
  const showOwner = useMemo(() => showOwnerColumn(cluster, jobs ?? []), [cluster, jobs]);
  const alert = useMemo(() => clusterAlert(cluster), [cluster]);
  const clustered = cluster?.enabled ? cluster : null;
  const hasFleet = clustered !== null && (clustered.backend === 'gossip' || clustered.fleet === true);
  const showCluster = useCallback(() => {
    document.getElementById('cluster-panel')?.scrollIntoView({ block: 'start' });
  }, []);
  const openFleet = useCallback(
    () => setRoute({ view: route.view === 'fleet' ? 'jobs' : 'fleet', drawer: route.drawer }),
    [route],
  );

  useEffect(() => {
    document.title =
      summary && summary.failing > 0 ? `(${summary.failing} failing) cronstable` : 'cronstable';
  }, [summary?.failing]);

  // Desktop notification when a refresh finds a job failing anew (settings → notifications).
  useEffect(() => {
    if (jobs === null) return;
    const failed = newFailures(prevJobs.current, jobs);
    prevJobs.current = jobs;
    if (failed.length === 0 || notificationState(notifyPref) !== 'on') return;
    const notice = failureNotice(failed);
    if (notice === null) return;
    try {
      new Notification(notice.title, { body: notice.body, tag: 'cronstable-failure' });
    } catch {
      // some browsers only allow notifications from a service worker
    }
  }, [jobs]);
  const setNotify = useCallback(
    (on: boolean) => {
      if (!on || typeof Notification === 'undefined') {
        setNotifyPref('off');
        return;
      }
      void Notification.requestPermission().then((perm) => {
        setNotifyPref(perm === 'granted' ? 'on' : 'off');
        setNotifyNonce((n) => n + 1);
        if (perm !== 'granted') toast('The browser did not allow notifications.', 'bad');
      });
    },
    [setNotifyPref],
  );

  // Next fire per row: the daemon's answer until it passes, then rolled forward by the engine.
  const rolled = useRef(new Map<string, number | null>());
  useEffect(() => rolled.current.clear(), [fetchedAt]);
  const nextAtOf = useCallback((row: Row, t: number): number | null => {
    const base = row.nextAt;
    if (base === null || base > t || !row.job.enabled || row.job.running) return base;
    const cached = rolled.current.get(row.job.name);
    if (cached !== undefined && (cached === null || cached > t)) return cached;
    const next = nextFireOf(compileJob(row.job), t);
    rolled.current.set(row.job.name, next);
    return next;
  }, []);

  const openJob = useCallback(
    (name: string, tab: DrawerTab = 'logs') => {
      setSelected(name);
      setRoute({ view: route.view, drawer: { name, tab } });
    },
    [route.view],
  );
  const closeDrawer = useCallback(() => setRoute({ view: route.view, drawer: null }), [route.view]);

  const post = useCallback(
    async (name: string, verb: 'start' | 'cancel') => {
      try {
        const r = await api.post(`/jobs/${encodeURIComponent(name)}/${verb}`);
        if (r.ok) toast(verb === 'start' ? `▶ started ${name}` : `■ cancelling ${name}`, 'ok');
        else if (r.status !== 401) toast(r.text || `${verb} failed: HTTP ${r.status}`, 'bad');
      } catch (err) {
        if (!(err instanceof HttpError && err.status === 401)) toast(`${verb} failed: ${String(err)}`, 'bad');
      }
      window.setTimeout(refreshNow, 350);
    },
    [api, refreshNow],
  );
  const runJob = useCallback((name: string) => void post(name, 'start'), [post]);
  const cancelJob = useCallback((name: string) => void post(name, 'cancel'), [post]);

  // Keyboard navigation.
  const state = useRef({ shown, selected, route, help, tokenDialog, incident, palette, settings });
  state.current = { shown, selected, route, help, tokenDialog, incident, palette, settings };
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      const s = state.current;
      if (s.help || s.tokenDialog || s.incident || s.palette || s.settings) return;
      const target = e.target as HTMLElement | null;
      const tag = target?.tagName ?? '';
      if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || target?.isContentEditable) return;
      // ui-schedule: keys typed in a modal (sandbox, node card) stay there
      if (target?.closest('.overlay')) return;
      const inDrawer = target?.closest('.drawer') !== null && target?.closest('.drawer') !== undefined;
      const move = (delta: number): void => {
        if (s.shown.length === 0) return;
        const i = s.selected === null ? -1 : s.shown.findIndex((r) => r.job.name === s.selected);
        const next =
          i < 0 ? (delta > 0 ? 0 : s.shown.length - 1) : Math.max(0, Math.min(s.shown.length - 1, i + delta));
        const name = s.shown[next]!.job.name;
        setSelected(name);
        if (s.route.drawer !== null)
          setRoute({ view: s.route.view, drawer: { name, tab: s.route.drawer.tab } });
      };
      const current = s.route.drawer?.name ?? s.selected;
      switch (e.key) {
        case '/':
          e.preventDefault();
          filterRef.current?.focus();
          filterRef.current?.select();
          break;
        case 'j':
          move(1);
          break;
        case 'k':
          move(-1);
          break;
        case 'ArrowDown':
        case 'ArrowUp':
          if (inDrawer) return;
          e.preventDefault();
          move(e.key === 'ArrowDown' ? 1 : -1);
          break;
        case 'Enter':
          if (tag === 'BUTTON' || tag === 'A' || s.selected === null) return;
          // The drawer takes focus as it opens; without this the same key press would then press its ✕.
          e.preventDefault();
          openJob(s.selected, s.route.drawer?.tab ?? 'logs');
          break;
        case 'r':
          if (current) runJob(current);
          break;
        case 'x':
          if (current) cancelJob(current);
          break;
        case '?':
          setHelp(true);
          break;
        case 't':
          nextTheme();
          break;
        case 'T':
          toggleTheme();
          break;
        case 'c': {
          const job = current ? s.shown.find((r) => r.job.name === current)?.job : undefined;
          if (job)
            void copyText(job.command).then((ok) => ok && toast(`copied the command of ${job.name}`, 'ok'));
          break;
        }
        case 'v':
          setRoute({ view: s.route.view === 'week' ? 'jobs' : 'week', drawer: s.route.drawer });
          break;
        case 'g':
          refreshNow();
          break;
        case 'i':
          setIncident('timeline');
          break;
        case 'w':
          setRoute({ view: s.route.view === 'tv' ? 'jobs' : 'tv', drawer: null });
          break;
        case '1':
        case '2':
        case '3':
        case '4':
          if (s.route.drawer !== null) {
            const tab = (['logs', 'history', 'schedule', 'resources'] as const)[Number(e.key) - 1]!;
            setRoute({ view: s.route.view, drawer: { name: s.route.drawer.name, tab } });
          }
          break;
        case 'Escape':
          if (s.route.drawer !== null) setRoute({ view: s.route.view, drawer: null });
          else if (s.route.view === 'tv') setRoute({ view: 'jobs', drawer: null });
          break;
        default:
          return;
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [openJob, runJob, cancelJob, toggleTheme, nextTheme, refreshNow, setRoute]);

  // Ctrl/⌘-K and Ctrl-P open the palette from anywhere, inputs included (capture: before the focus traps).
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const k = e.key.toLowerCase();
      if (e.altKey || e.shiftKey || !((k === 'k' && (e.ctrlKey || e.metaKey)) || (k === 'p' && e.ctrlKey)))
        return;
      e.preventDefault();
      e.stopPropagation();
      setHelp(false);
      setSettings(false);
      setPalette((open) => !open);
    };
    document.addEventListener('keydown', onKey, true);
    return () => document.removeEventListener('keydown', onKey, true);
  }, []);

  const interval = refresh === 'paused' ? Number.POSITIVE_INFINITY : Number(refresh) * 1000;
  const conn: Connection = locked
    ? 'locked'
    : fetchedAt === 0
      ? pollFailed
        ? 'lost'
        : 'connecting'
      : pollFailed
        ? 'lost'
        : now - fetchedAt > Math.max(10_000, interval * 3 + 2000)
          ? 'stale'
          : 'live';

  const drawer = route.drawer;
  const drawerJob = drawer && jobs ? jobs.find((j) => j.name === drawer.name) : undefined;
  const rowActions = useMemo(
    () => ({
      onOpen: (name: string, tab?: 'logs' | 'schedule') => openJob(name, tab ?? 'logs'),
      onSelect: setSelected,
      onRun: runJob,
      onCancel: cancelJob,
    }),
    [openJob, runJob, cancelJob],
  );

  // The palette's actions: read at open time through refs, so they always see the current state.
  const coreRef = useRef<Parameters<typeof coreCommands>[0] | null>(null);
  coreRef.current = {
    view: route.view,
    setView: (view) => setRoute({ view, drawer: null }),
    hasFleet,
    hasCluster: clustered !== null,
    focusFilter: () => {
      if (route.view !== 'jobs') setRoute({ view: 'jobs', drawer: null });
      window.setTimeout(() => {
        filterRef.current?.focus();
        filterRef.current?.select();
      }, 0);
    },
    setSegment: (sg) => {
      setSegment(sg);
      if (route.view !== 'jobs') setRoute({ view: 'jobs', drawer: route.drawer });
    },
    refreshNow,
    setRefresh,
    sort: { key: sortKey, desc: sortDir === 'desc' },
    setSort: (key, desc) => {
      setSortKey(key);
      setSortDir(desc ? 'desc' : 'asc');
      if (route.view !== 'jobs') setRoute({ view: 'jobs', drawer: route.drawer });
    },
    cols,
    toggleCol,
    theme,
    setTheme: setThemePref,
    flipTheme: toggleTheme,
    cycleTheme: nextTheme,
    density: look.density,
    setDensity: look.setDensity,
    motion: look.motion,
    setMotion: look.setMotion,
    setCvd: look.setCvd,
    setScale: look.setScale,
    openSettings: () => setSettings(true),
    openHelp: () => setHelp(true),
    openToken: () => setTokenDialog({ rejected: false }),
    copyJobSetId: () => {
      if (jobSetId) void copyText(jobSetId).then((ok) => ok && toast('copied the job-set id', 'ok'));
    },
    scrollTo: (id) => {
      const go = (): void => {
        const el = document.getElementById(id) ?? document.querySelector(`[data-testid="${id}"]`);
        if (el) el.scrollIntoView({ block: 'start' });
        else toast(`nothing to show: no ${id.replace(/-/g, ' ')} on this page`, 'bad');
      };
      if (route.view !== 'jobs') {
        setRoute({ view: 'jobs', drawer: null });
        window.setTimeout(go, 50);
      } else go();
    },
  };
  // Palette entries for the views of other issues (radar, pressure, tail, tv, state...): one line each, e.g.
  //   { id: 'view.radar', title: 'Show the next-fire radar', group: 'view', keywords: '⌁ radar', run: () => ... },
  // A component below this one can instead call useRegisterCommands (app/appCommands.ts).
  const viewActions = useRef<() => Command[]>(() => []);
  viewActions.current = (): Command[] => {
    const go = (view: Route['view']) => () => setRoute({ view, drawer: null });
    const list: Command[] = [
      {
        id: 'view.radar',
        title: 'Show the next-fire radar',
        group: 'view',
        keywords: '⌁ radar next',
        run: go('radar'),
      },
      {
        id: 'view.pressure',
        title: 'Show the schedule pressure',
        group: 'view',
        keywords: '▥ pressure grid',
        run: go('pressure'),
      },
      {
        id: 'view.heat',
        title: 'Show the activity heatmap',
        group: 'view',
        keywords: '▦ heat',
        run: go('heat'),
      },
      {
        id: 'view.tail',
        title: 'Tail several jobs at once',
        group: 'view',
        keywords: '≋ tail multi logs',
        run: go('tail'),
      },
      {
        id: 'view.tv',
        title: 'Show the wallboard',
        group: 'view',
        hint: 'w',
        keywords: '▭ tv wallboard',
        run: go('tv'),
      },
      {
        id: 'incident.timeline',
        title: 'Open the incident timeline',
        group: 'incident',
        hint: 'i',
        run: () => setIncident('timeline'),
      },
      {
        id: 'incident.mitigate',
        title: 'Open the mitigate console',
        group: 'incident',
        run: () => setIncident('mitigate'),
      },
      {
        id: 'incident.run-failing',
        title: 'Run every failing job again',
        group: 'incident',
        run: () => setIncident('run-failing'),
      },
      {
        id: 'tool.sandbox',
        title: 'Open the cron sandbox',
        group: 'tool',
        keywords: '✎ cron expression preview',
        run: () => openSandbox(),
      },
      {
        id: 'tool.node',
        title: "Show this node's CPU and memory history",
        group: 'tool',
        keywords: 'resources',
        run: openNodeHistory,
      },
    ];
    if (stateEnabled)
      list.push({
        id: 'view.state',
        title: 'Inspect the state store',
        group: 'view',
        keywords: '⛁ state kv',
        run: go('state'),
      });
    if (dagCount > 0)
      list.push({
        id: 'view.dags',
        title: 'Show or hide the DAG card',
        group: 'view',
        keywords: '⧉ dags',
        run: () => setDagsShown((v) => !v),
      });
    return list;
  };
  const jobsRef = useRef(jobs);
  jobsRef.current = jobs;
  useEffect(() => {
    const offViews = registry.register('views', () => viewActions.current());
    const offCore = registry.register('core', () => coreCommands(coreRef.current!));
    const offJobs = registry.register('jobs', () =>
      jobCommands(jobsRef.current ?? [], {
        open: (name, tab) => openJobRef.current(name, tab),
        run: (name) => runJob(name),
        cancel: (name) => cancelJob(name),
        copy: (job) =>
          void copyText(job.command).then((ok) => ok && toast(`copied the command of ${job.name}`, 'ok')),
      }),
    );
    return () => {
      offViews();
      offCore();
      offJobs();
    };
  }, [registry, runJob, cancelJob]);
  // Read once per opening (the palette re-ranks when its list changes, and App re-renders every second).
  const paletteCommands = useMemo(() => (palette ? registry.all() : []), [palette, registry]);
  const openJobRef = useRef(openJob);
  openJobRef.current = openJob;

  return (
    <div class={`app${drawer ? ' has-drawer' : ''}`}>
      <Header
        version={version}
        jobSetId={jobSetId}
        now={now}
        conn={refresh === 'paused' && (conn === 'stale' || conn === 'live') ? 'paused' : conn}
        lastOk={fetchedAt}
        summary={summary}
        node={node}
        theme={theme}
        hasToken={api.hasToken()}
        onSegment={(sg) => {
          setSegment(sg);
          if (route.view !== 'jobs') setRoute({ view: 'jobs', drawer: route.drawer });
        }}
        onToggleTheme={toggleTheme}
        onToken={() => setTokenDialog({ rejected: false })}
        onHelp={() => setHelp(true)}
        onPalette={() => setPalette(true)}
        onSettings={() => setSettings(true)}
        cluster={
          clustered
            ? {
                role: roleText(clustered) ?? (isLeaseBackend(clustered) ? 'lease' : 'observing'),
                alert: alert !== null,
                fleet: hasFleet,
              }
            : null
        }
        fleetOpen={route.view === 'fleet'}
        onFleet={openFleet}
      />
      <main class="main" id="main">
        {alert && <ClusterAlertBanner alert={alert} onShow={showCluster} />}
        <Toolbar
          filter={filter}
          segment={segment}
          view={route.view}
          refresh={refresh}
          inputRef={filterRef}
          onFilter={setFilter}
          onSegment={setSegment}
          onView={(view) => setRoute({ view, drawer: route.drawer })}
          onRefresh={setRefresh}
          dags={dagCount > 0 ? { shown: dagsShown, onToggle: () => setDagsShown((v) => !v) } : undefined}
          incident={{ failing: summary?.failing ?? 0, onRunFailing: () => setIncident('run-failing') }}
          stateEnabled={stateEnabled}
        />
        {node?.overload?.overloaded && <OverloadBanner overload={node.overload} />}
        {banner && (
          <FailureBanner
            banner={banner}
            now={now}
            onOpen={(name) => openJob(name, 'logs')}
            onShowFailing={() => {
              setSegment('fail');
              if (route.view !== 'jobs') setRoute({ view: 'jobs', drawer: route.drawer });
            }}
            actions={{
              onTimeline: () => setIncident('timeline'),
              onTail: () => {
                setTailNames(banner.jobs.slice(0, 4).map((j) => j.name));
                setRoute({ view: 'tail', drawer: route.drawer });
              },
              onMitigate: () => setIncident('mitigate'),
            }}
          />
        )}
        {jobs === null ? (
          <LoadingCard
            locked={locked}
            failed={pollFailed}
            onUnlock={() => setTokenDialog({ rejected: true })}
          />
        ) : route.view === 'week' ? (
          <WeekCalendar jobs={jobs} now={now} api={api} onOpen={(name) => openJob(name, 'schedule')} />
        ) : route.view === 'tail' ? (
          <MultiTail
            jobs={jobs}
            api={api}
            names={tailNames}
            onNames={setTailNames}
            onOpen={(name) => openJob(name, 'logs')}
          />
        ) : route.view === 'radar' ? (
          <RadarView jobs={jobs} now={now} onOpen={(name) => openJob(name, 'schedule')} />
        ) : route.view === 'pressure' ? (
          <PressureView api={api} onOpen={(name) => openJob(name, 'schedule')} />
        ) : route.view === 'heat' ? (
          <HeatView jobs={jobs} now={now} api={api} onOpen={(name) => openJob(name, 'history')} />
        ) : route.view === 'state' ? (
          <StateInspector api={api} jobs={jobs} intervalMs={interval} />
        ) : route.view === 'fleet' ? (
          <>
            {clustered && <ClusterPanel cluster={clustered} jobs={jobs} onFleet={null} />}
            <FleetView fleet={fleet} jobs={jobs} now={now} onOpen={(name) => openJob(name, 'logs')} />
          </>
        ) : (
          <>
            <JobsTable
              rows={shown}
              total={rows.length}
              sort={{ key: sortKey, desc: sortDir === 'desc' }}
              onSort={(s) => {
                setSortKey(s.key);
                setSortDir(s.desc ? 'desc' : 'asc');
              }}
              selected={selected}
              now={now}
              nextAtOf={nextAtOf}
              nodeName={cluster?.node_name ?? null}
              showOwner={showOwner}
              actions={rowActions}
              emptyText={rows.length === 0 ? 'No jobs configured.' : 'No job matches the filter.'}
              cols={cols}
              rowHeight={ROW_HEIGHTS[look.density]}
              scale={Number(look.scale) / 100}
              tools={<ColumnChooser cols={cols} onToggle={toggleCol} />}
            />
            {clustered && (
              <ClusterPanel cluster={clustered} jobs={jobs} onFleet={hasFleet ? openFleet : null} />
            )}
            <DagCard
              api={api}
              intervalMs={refresh === 'paused' ? 60_000 : Number(refresh) * 1000}
              shown={dagsShown}
              onCount={setDagCount}
            />
          </>
        )}
      </main>
      {drawer && (
        <Drawer
          name={drawer.name}
          job={drawerJob}
          jobs={jobs ?? []}
          tab={drawer.tab}
          now={now}
          nodeName={cluster?.node_name ?? null}
          api={api}
          onTab={(tab) => setRoute({ view: route.view, drawer: { name: drawer.name, tab } })}
          onClose={closeDrawer}
          onRun={runJob}
          onCancel={cancelJob}
        />
      )}
      {help && <HelpDialog onClose={() => setHelp(false)} />}
      {route.view === 'tv' && jobs !== null && (
        <Wallboard
          jobs={jobs}
          now={now}
          lastOk={fetchedAt}
          intervalMs={interval}
          onOpen={(name) => setRoute({ view: 'jobs', drawer: { name, tab: 'logs' } })}
          onExit={() => setRoute({ view: 'jobs', drawer: null })}
        />
      )}
      {incident === 'timeline' && jobs !== null && (
        <IncidentTimeline
          jobs={jobs}
          correlation={banner?.correlation ?? null}
          now={now}
          onOpen={(name) => {
            setIncident(null);
            openJob(name, 'logs');
          }}
          onClose={() => setIncident(null)}
        />
      )}
      {(incident === 'mitigate' || incident === 'run-failing') && jobs !== null && (
        <MitigateConsole
          jobs={jobs}
          api={api}
          node={node?.node_name ?? null}
          runFailing={incident === 'run-failing'}
          onDone={() => window.setTimeout(refreshNow, 350)}
          onClose={() => setIncident(null)}
        />
      )}
      {palette && <CommandPalette commands={paletteCommands} onClose={() => setPalette(false)} />}
      {settings && (
        <SettingsDialog
          themePref={themePref}
          onTheme={setThemePref}
          look={look}
          refresh={refresh}
          onRefresh={setRefresh}
          notify={notificationState(notifyPref)}
          onNotify={setNotify}
          onClose={() => setSettings(false)}
        />
      )}
      {tokenDialog && (
        <TokenDialog
          rejected={tokenDialog.rejected}
          hasToken={api.hasToken()}
          onSubmit={(token) => {
            api.setToken(token);
            setTokenDialog(null);
            setLocked(false);
            refreshNow();
          }}
          onClear={() => {
            api.setToken(null);
            setTokenDialog(null);
            refreshNow();
          }}
          onClose={() => setTokenDialog(null)}
        />
      )}
      <Toasts toasts={toasts} />
      <SandboxHost />
      <NodeHistoryHost api={api} />
    </div>
  );
}

function LoadingCard({ locked, failed, onUnlock }: { locked: boolean; failed: boolean; onUnlock(): void }) {
  return (
    <section class="card placeholder" aria-live="polite">
      <div class="placeholder-body">
        <span class="placeholder-glyph" aria-hidden="true">
          {locked ? '◆' : failed ? '⚠' : '◌'}
        </span>
        {locked ? (
          <p>
            <strong>The API needs a token.</strong> This daemon has <code>web.authToken</code> set.{' '}
            <button type="button" class="btn btn-primary" onClick={onUnlock}>
              Enter token
            </button>
          </p>
        ) : failed ? (
          <p>
            <strong>No answer from the daemon.</strong> Retrying…
          </p>
        ) : (
          <p>
            <strong>Connecting to the daemon…</strong>
          </p>
        )}
      </div>
    </section>
  );
}
