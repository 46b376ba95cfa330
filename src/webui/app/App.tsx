// The dashboard shell (spec 06 §9): composes the polling, the route, selection and keyboard, the chrome and the
// views. Each view lives in views/<name>/, the chrome in chrome/, browser I/O in io/, and what they compute in
// src/dashboard (shared with the terminal dashboard).
import { useCallback, useMemo, useRef, useState } from 'preact/hooks';
import { clusterAlert, hasFleetView, roleLabel } from '../../dashboard/cluster.ts';
import { connectionState } from '../../dashboard/connection.ts';
import { pollPeriodMs } from '../../dashboard/hidden.ts';
import type { CoreContext } from '../../dashboard/palette.ts';
import type { DrawerTab } from '../../dashboard/route.ts';
import { REFRESH_CHOICES, type RefreshChoice, ROW_HEIGHTS } from '../../dashboard/settings.ts';
import { failureBanner, summarize } from '../../dashboard/status.ts';
import { ClusterAlertBanner } from '../chrome/ClusterAlertBanner.tsx';
import { FailureBanner } from '../chrome/FailureBanner.tsx';
import { Header } from '../chrome/Header.tsx';
import { HelpDialog } from '../chrome/HelpDialog.tsx';
import { OverloadBanner } from '../chrome/OverloadBanner.tsx';
import { Toasts, useToasts } from '../chrome/Toasts.tsx';
import { Toolbar } from '../chrome/Toolbar.tsx';
import type { Api } from '../io/api.ts';
import { copyText, useNow, usePageHidden, usePref, useRoute } from '../io/hooks.ts';
import { useLook, useTheme, useThemeKeys } from '../io/theme.ts';
import { Drawer } from '../views/drawer/Drawer.tsx';
import { IncidentTimeline } from '../views/incident/IncidentTimeline.tsx';
import { MitigateConsole } from '../views/incident/MitigateConsole.tsx';
import { NodeHistoryHost, openNodeHistory } from '../views/node/NodeHistory.tsx';
import { usePairCommand } from '../views/pair/PairDialog.tsx';
import { openSandbox, SandboxHost } from '../views/sandbox/Sandbox.tsx';
import { useStateProbe } from '../views/state/StateInspector.tsx';
import { Wallboard } from '../views/wallboard/Wallboard.tsx';
import { AccessContext, useAccessProbe } from './access.ts';
import { DialogHost, useDialogs } from './Dialogs.tsx';
import { MainView } from './MainView.tsx';
import { useBoard } from './useBoard.ts';
import { useJobActions } from './useJobActions.ts';
import { useKeyboard } from './useKeyboard.ts';
import { useNextFire } from './useNextFire.ts';
import { useNotifications } from './useNotifications.ts';
import { usePaletteCommands } from './usePaletteCommands.ts';
import { usePoll } from './usePoll.ts';
import { useTabTitle } from './useTabTitle.ts';

type Incident = 'timeline' | 'mitigate' | 'run-failing';

export function App({ api }: { api: Api }) {
  const now = useNow();
  const [route, setRoute] = useRoute();
  const dialogs = useDialogs();
  const [refresh, setRefresh] = usePref<RefreshChoice>('refresh', '3', REFRESH_CHOICES);
  const [selected, setSelected] = useState<string | null>(null);
  // dag-gaps: the DAG card reports how many DAGs `/dags` lists; the ⧉ dags button shows it or hides it.
  const [dagCount, setDagCount] = useState(0);
  const [dagsShown, setDagsShown] = useState(true);
  // Incident tools (issue 13): the timeline / mitigate dialogs and the multi-tail's streams.
  const [incident, setIncident] = useState<Incident | null>(null);
  const [tailNames, setTailNames] = useState<string[]>([]);
  const [theme, themePref, setThemePref] = useTheme();
  const look = useLook();
  const { toggleTheme, nextTheme } = useThemeKeys(theme, setThemePref);
  const [toasts, toast] = useToasts();
  const filterRef = useRef<HTMLInputElement>(null);

  const hidden = usePageHidden();
  const poll = usePoll(api, refresh, hidden, route.view === 'fleet', () =>
    dialogs.askToken(api.hasToken(), true),
  );
  const { jobs, fetchedAt, cluster, node, refreshNow } = poll;
  // ui-schedule: `/state` on each tick until it first answers (spec 06 §9.1)
  const stateEnabled = useStateProbe(api, fetchedAt)?.enabled === true;
  const [notify, setNotify] = useNotifications(jobs, toast);

  const board = useBoard(jobs, fetchedAt, cluster);
  const summary = useMemo(() => (jobs === null ? null : summarize(jobs)), [jobs]);
  const banner = useMemo(() => (jobs === null ? null : failureBanner(jobs)), [jobs]);
  const alert = useMemo(() => clusterAlert(cluster), [cluster]);
  const clustered = cluster?.enabled ? cluster : null;
  const hasFleet = hasFleetView(cluster);
  const showCluster = useCallback(() => {
    document.getElementById('cluster-panel')?.scrollIntoView({ block: 'start' });
  }, []);
  const openFleet = useCallback(
    () => setRoute({ view: route.view === 'fleet' ? 'jobs' : 'fleet', drawer: route.drawer }),
    [route],
  );
  /** A segment (or sort) chosen outside the jobs view brings the jobs view back. */
  const toJobs = (): void => {
    if (route.view !== 'jobs') setRoute({ view: 'jobs', drawer: route.drawer });
  };

  useTabTitle({
    jobs,
    fetchedAt,
    pollFailed: poll.pollFailed,
    alert: alert?.title ?? null,
    nodeName: clustered?.node_name ?? null,
  });

  const nextAtOf = useNextFire(fetchedAt);

  const openJob = useCallback(
    (name: string, tab: DrawerTab = 'logs') => {
      setSelected(name);
      setRoute({ view: route.view, drawer: { name, tab } });
    },
    [route.view],
  );
  const closeDrawer = useCallback(() => setRoute({ view: route.view, drawer: null }), [route.view]);

  const { runJob, cancelJob, copyCommand, togglePause } = useJobActions(api, refreshNow, toast);
  // Scope-aware chrome (spec 10 §5.4): /whoami on load and after every token change.
  const [tokenNonce, setTokenNonce] = useState(0);
  const access = useAccessProbe(api, tokenNonce);
  const ifControl = <A extends unknown[]>(fn: (...a: A) => void) => (access.control ? fn : () => {});
  usePairCommand(() => dialogs.setPair(true));

  useKeyboard(
    {
      shown: board.shown,
      selected,
      route,
      modal:
        dialogs.help ||
        dialogs.token !== null ||
        incident !== null ||
        dialogs.palette ||
        dialogs.settings ||
        dialogs.pair,
    },
    {
      select: setSelected,
      setRoute,
      openJob,
      runJob: ifControl(runJob),
      cancelJob: ifControl(cancelJob),
      togglePause: ifControl(togglePause),
      openHelp: () => dialogs.setHelp(true),
      nextTheme,
      toggleTheme,
      refreshNow,
      openTimeline: () => setIncident('timeline'),
      toast,
      togglePalette: dialogs.togglePalette,
    },
    filterRef,
  );

  const intervalMs = pollPeriodMs(refresh, hidden) ?? Number.POSITIVE_INFINITY;
  const conn = connectionState({ locked: poll.locked, fetchedAt, failed: poll.pollFailed, intervalMs }, now);

  const drawer = route.drawer;
  const drawerJob = drawer && jobs ? jobs.find((j) => j.name === drawer.name) : undefined;
  const rowActions = useMemo(
    () => ({
      onOpen: (name: string, tab?: 'logs' | 'schedule') => openJob(name, tab ?? 'logs'),
      onSelect: setSelected,
      onRun: runJob,
      onCancel: cancelJob,
      onTogglePause: togglePause,
    }),
    [openJob, runJob, cancelJob, togglePause],
  );

  // The palette's actions: read when it opens, so they always see the current state.
  const core: CoreContext = {
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
      board.setSegment(sg);
      toJobs();
    },
    refreshNow,
    setRefresh,
    sort: board.sort,
    setSort: (key, desc) => {
      board.setSort(key, desc);
      toJobs();
    },
    cols: board.cols,
    toggleCol: board.toggleCol,
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
    openSettings: () => dialogs.setSettings(true),
    openHelp: () => dialogs.setHelp(true),
    openToken: () => dialogs.askToken(false),
    copyJobSetId: () => {
      const id = poll.jobSetId;
      if (id) void copyText(id).then((ok) => ok && toast('copied the job-set id', 'ok'));
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
  const paletteCommands = usePaletteCommands(dialogs.palette, {
    views: {
      go: (view) => setRoute({ view, drawer: null }),
      openIncident: setIncident,
      openSandbox: () => openSandbox(),
      openNodeHistory,
      stateEnabled,
      dagCount,
      toggleDags: () => setDagsShown((v) => !v),
      control: access.control,
    },
    core,
    jobs: jobs ?? [],
    job: {
      open: openJob,
      run: runJob,
      cancel: cancelJob,
      copy: copyCommand,
      pause: togglePause,
      control: access.control,
    },
  });

  return (
    <AccessContext.Provider value={access}>
      <div class={`app${drawer ? ' has-drawer' : ''}`}>
        <Header
          version={poll.version}
          jobSetId={poll.jobSetId}
          now={now}
          conn={conn}
          lastOk={fetchedAt}
          summary={summary}
          node={node}
          theme={theme}
          hasToken={api.hasToken()}
          api={api}
          paused={refresh === 'paused'}
          onSegment={(sg) => {
            board.setSegment(sg);
            toJobs();
          }}
          onToggleTheme={toggleTheme}
          onToken={() => dialogs.askToken(false)}
          onHelp={() => dialogs.setHelp(true)}
          onPalette={() => dialogs.setPalette(true)}
          onSettings={() => dialogs.setSettings(true)}
          cluster={
            clustered
              ? {
                  role: roleLabel(clustered),
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
            filter={board.filter}
            segment={board.segment}
            view={route.view}
            refresh={refresh}
            inputRef={filterRef}
            onFilter={board.setFilter}
            onSegment={board.setSegment}
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
                board.setSegment('fail');
                toJobs();
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
          <MainView
            api={api}
            view={route.view}
            jobs={jobs}
            now={now}
            intervalMs={intervalMs}
            locked={poll.locked}
            pollFailed={poll.pollFailed}
            onUnlock={() => dialogs.askToken(true)}
            openJob={openJob}
            tail={{ names: tailNames, onNames: setTailNames }}
            cluster={clustered}
            fleet={poll.fleet}
            board={{
              rows: board.rows,
              shown: board.shown,
              sort: board.sort,
              onSort: (s) => board.setSort(s.key, s.desc),
              selected,
              nextAtOf,
              nodeName: cluster?.node_name ?? null,
              showOwner: board.showOwner,
              actions: rowActions,
              cols: board.cols,
              onToggleCol: board.toggleCol,
              rowHeight: ROW_HEIGHTS[look.density],
              scale: Number(look.scale) / 100,
              onFleet: hasFleet ? openFleet : null,
              dags: {
                intervalMs: pollPeriodMs(refresh, hidden) ?? 60_000,
                shown: dagsShown,
                onCount: setDagCount,
              },
            }}
          />
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
            onTogglePause={togglePause}
          />
        )}
        {dialogs.help && <HelpDialog onClose={() => dialogs.setHelp(false)} />}
        {route.view === 'tv' && jobs !== null && (
          <Wallboard
            jobs={jobs}
            now={now}
            lastOk={fetchedAt}
            intervalMs={intervalMs}
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
        <DialogHost
          dialogs={dialogs}
          commands={paletteCommands}
          settings={{
            themePref,
            onTheme: setThemePref,
            look,
            refresh,
            onRefresh: setRefresh,
            notify,
            onNotify: setNotify,
          }}
          hasToken={api.hasToken()}
          pairing={{ api, nodeName: clustered?.node_name ?? null }}
          onToken={(token) => {
            api.setToken(token);
            if (token !== null) poll.unlock();
            setTokenNonce((n) => n + 1);
            refreshNow();
          }}
        />
        <Toasts toasts={toasts} />
        <SandboxHost />
        <NodeHistoryHost api={api} />
      </div>
    </AccessContext.Provider>
  );
}
