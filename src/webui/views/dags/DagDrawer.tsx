// The DAG drawer (spec 06 §9.2, spec 04 §9): Runs, Graph, Tasks (Approve / Reject), XCom and live Logs
// for one DAG. The selected run is polled while the drawer is open.
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  type ApiDag,
  type ApiDagRun,
  type ApiDagRunRow,
  type ApiDagRuns,
  type ApiTaskEntry,
  type ApiXcom,
  type ApiXcomEntry,
  backfillMessage,
  canBackfill,
  clockOf,
  dagShapeText,
  decisionMessage,
  type FanOut,
  fanOut,
  fanOutText,
  instanceLabel,
  layoutGraph,
  NODE_H,
  NODE_W,
  nodeView,
  scheduleText,
  showDecisionButtons,
  stateTone,
  taskDetail,
  taskStateSummary,
  tookText,
  xcomInline,
} from '../../../dashboard/dag.ts';
import { errorText } from '../../../dashboard/format.ts';
import type { LogLine } from '../../../dashboard/sse.ts';
import { useAccess } from '../../app/access.ts';
import { useFocusTrap } from '../../chrome/Dialog.tsx';
import type { Api } from '../../io/api.ts';
import { usePolling } from '../../io/hooks.ts';

export type DagTab = 'runs' | 'graph' | 'tasks' | 'xcom' | 'logs';
const TABS: readonly DagTab[] = ['runs', 'graph', 'tasks', 'xcom', 'logs'];
const LABEL: Record<DagTab, string> = {
  runs: 'Runs',
  graph: 'Graph',
  tasks: 'Tasks',
  xcom: 'XCom',
  logs: 'Logs',
};
const POLL_MS = 1000;

const enc = encodeURIComponent;

export function DagDrawer({
  api,
  dag,
  initialRunKey,
  onRunKey,
  onClose,
  onTrigger,
}: {
  api: Api;
  dag: ApiDag;
  initialRunKey: string | null;
  onRunKey(runKey: string | null): void;
  onClose(): void;
  onTrigger(): void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useFocusTrap(ref, onClose);
  const [tab, setTab] = useState<DagTab>('runs');
  const { control } = useAccess();
  const [runs, setRuns] = useState<ApiDagRunRow[]>([]);
  const [runKey, setRunKeyState] = useState<string | null>(initialRunKey);
  const setRunKey = (k: string | null): void => {
    setRunKeyState(k);
    onRunKey(k);
  };
  const [run, setRun] = useState<ApiDagRun | null>(null);
  const [nonce, setNonce] = useState(0);
  const [backfillOpen, setBackfillOpen] = useState(false);
  const key = runKey ?? runs[0]?.runKey ?? null;
  const latest = dag.latestRun?.runKey;

  usePolling(
    async (live) => {
      try {
        const r = await api.json<ApiDagRuns>(`/dags/${enc(dag.name)}/runs?limit=50`);
        if (!live()) return;
        setRuns(r.runs);
        const k = runKey ?? r.runs[0]?.runKey;
        if (k) {
          const one = await api.json<ApiDagRun>(`/dags/${enc(dag.name)}/runs/${enc(k)}`);
          if (live()) setRun(one);
        }
      } catch {
        // keep the last answer; the next tick retries
      }
    },
    POLL_MS,
    [api, dag.name, runKey, nonce, latest],
  );

  const shown = run && run.runKey === key ? run : null;
  return (
    <div class="drawer-layer">
      <div class="drawer-scrim" onClick={onClose} aria-hidden="true" />
      <div
        ref={ref}
        class="drawer dag-drawer"
        role="dialog"
        aria-modal="true"
        aria-labelledby="dag-drawer-title"
        tabIndex={-1}
        data-testid="dag-drawer"
      >
        <div class="drawer-head">
          <div class="drawer-title-row">
            <h2 id="dag-drawer-title" class="drawer-title">
              {dag.name}
            </h2>
            {shown && (
              <span class={`dag-state tone-${stateTone(shown.state)}`} data-testid="dag-run-state">
                {shown.state}
              </span>
            )}
            <div class="drawer-tools">
              {control && (
                <button
                  type="button"
                  class="btn btn-small"
                  onClick={() => {
                    setRunKey(null);
                    onTrigger();
                  }}
                  data-testid="dag-drawer-trigger"
                >
                  ▶ Trigger
                </button>
              )}
              {control && (
                <button
                  type="button"
                  class="btn btn-small"
                  disabled={!canBackfill(dag)}
                  title={
                    canBackfill(dag)
                      ? 'Create runs for past instants'
                      : 'Manual-only DAGs have no instants to backfill'
                  }
                  onClick={() => setBackfillOpen((o) => !o)}
                  data-testid="dag-backfill"
                >
                  ▦ Backfill
                </button>
              )}
              <button
                type="button"
                class="iconbtn"
                onClick={onClose}
                aria-label="Close"
                data-testid="dag-close"
              >
                ✕
              </button>
            </div>
          </div>
          <p class="drawer-facts muted" data-testid="dag-facts">
            {dagShapeText(dag.tasks)} · schedule {scheduleText(dag)} ·{' '}
            {shown
              ? `run ${shown.runKey} (${shown.kind}) · started ${clockOf(shown.createdAt)}`
              : key
                ? `run ${key}`
                : 'no runs yet'}
          </p>
          {backfillOpen && <BackfillForm api={api} dag={dag.name} onDone={() => setNonce((n) => n + 1)} />}
          <div class="tabs" role="tablist">
            {TABS.map((t) => (
              <button
                key={t}
                type="button"
                role="tab"
                aria-selected={tab === t}
                class={`tab${tab === t ? ' is-on' : ''}`}
                onClick={() => setTab(t)}
                data-testid={`dag-tab-${t}`}
              >
                {LABEL[t]}
              </button>
            ))}
          </div>
        </div>
        <div class="drawer-body" role="tabpanel">
          {tab === 'runs' && (
            <RunsTab
              runs={runs}
              selected={key}
              onSelect={(k) => {
                setRunKey(k);
                setTab('graph');
              }}
            />
          )}
          {tab === 'graph' && <GraphTab dag={dag} run={shown} />}
          {tab === 'tasks' && (
            <TasksTab api={api} dag={dag} run={shown} onDecided={() => setNonce((n) => n + 1)} />
          )}
          {tab === 'xcom' && key && <XcomTab api={api} dag={dag.name} runKey={key} />}
          {tab === 'logs' && key && <DagLogsTab api={api} dag={dag.name} run={shown} runKey={key} />}
          {(tab === 'xcom' || tab === 'logs') && !key && <p class="empty">No runs yet.</p>}
        </div>
      </div>
    </div>
  );
}

function RunsTab(p: { runs: ApiDagRunRow[]; selected: string | null; onSelect(key: string): void }) {
  if (p.runs.length === 0) return <p class="empty">No runs yet. Trigger one from the card.</p>;
  return (
    <table class="dag-runs" data-testid="dag-runs">
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">State</th>
          <th scope="col">Kind</th>
          <th scope="col">Created</th>
          <th scope="col">Updated</th>
          <th scope="col">Tasks</th>
        </tr>
      </thead>
      <tbody>
        {p.runs.map((r) => (
          <tr key={r.runKey} class={r.runKey === p.selected ? 'is-selected' : ''} data-testid="dag-run-row">
            <td>
              <button type="button" class="linkbtn" onClick={() => p.onSelect(r.runKey)}>
                {r.runKey}
              </button>
            </td>
            <td>
              <span class={`dag-state tone-${stateTone(r.state)}`}>{r.state}</span>
            </td>
            <td>{r.kind}</td>
            <td>{clockOf(r.createdAt)}</td>
            <td>{clockOf(r.updatedAt)}</td>
            <td class="muted">{taskStateSummary(r.taskStates)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function GraphTab({ dag, run }: { dag: ApiDag; run: ApiDagRun | null }) {
  const g = layoutGraph(dag.tasks);
  const at = new Map(g.nodes.map((n) => [n.id, n]));
  const byId = new Map(dag.tasks.map((t) => [t.id, t]));
  return (
    <svg
      class="dag-graph"
      width={g.width}
      height={g.height}
      viewBox={`0 0 ${g.width} ${g.height}`}
      role="img"
      aria-label={`Task graph of ${dag.name}`}
      data-testid="dag-graph"
    >
      {g.edges.map((e) => {
        const a = at.get(e.from);
        const b = at.get(e.to);
        if (!a || !b) return null;
        const x1 = a.x + NODE_W;
        const y1 = a.y + NODE_H / 2;
        const x2 = b.x;
        const y2 = b.y + NODE_H / 2;
        const mx = (x1 + x2) / 2;
        return (
          <path
            key={`${e.from}->${e.to}`}
            class="dag-edge"
            d={`M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`}
          />
        );
      })}
      {g.nodes.map((n) => {
        const t = byId.get(n.id);
        if (!t) return null;
        const v = nodeView(t, run);
        return (
          <g
            key={n.id}
            class={`dag-node tone-${v.awaiting ? 'wait' : stateTone(v.state)}`}
            data-testid={`dag-node-${n.id}`}
            data-state={v.state ?? 'none'}
            transform={`translate(${n.x},${n.y})`}
          >
            <title>{`${n.id} (${t.type}): ${v.awaiting ? 'awaiting approval' : (v.state ?? 'no run')}`}</title>
            <rect width={NODE_W} height={NODE_H} rx={6} />
            <text x={8} y={NODE_H / 2 + 4}>
              {t.type === 'approval' ? '◆ ' : t.type === 'sensor' ? '◎ ' : ''}
              {v.label}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

function TasksTab(p: { api: Api; dag: ApiDag; run: ApiDagRun | null; onDecided(): void }) {
  const [message, setMessage] = useState<string | null>(null);
  // Without the approve scope a waiting gate reads as its state only (spec 10 §5.4).
  const { approve } = useAccess();
  if (!p.run) return <p class="empty">No runs yet.</p>;
  const run = p.run;
  const byId = new Map(p.dag.tasks.map((t) => [t.id, t]));
  const decide = async (taskkey: string, decision: 'approve' | 'reject'): Promise<void> => {
    const r = await p.api.postJson(
      `/dags/${enc(p.dag.name)}/runs/${enc(run.runKey)}/tasks/${enc(taskkey)}/decision`,
      { decision, by: 'dashboard' },
    );
    setMessage(decisionMessage(r.status, r.text));
    p.onDecided();
  };
  return (
    <>
      {message && (
        <p class="dag-message" role="status" data-testid="dag-decision-message">
          {message}
        </p>
      )}
      <table class="dag-tasks" data-testid="dag-tasks">
        <thead>
          <tr>
            <th scope="col">Task</th>
            <th scope="col">State</th>
            <th scope="col" class="num">
              Attempt
            </th>
            <th scope="col" class="num">
              Exit
            </th>
            <th scope="col">Host</th>
            <th scope="col">Started</th>
            <th scope="col">Took</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(run.tasks).map(([k, e]) => (
            <tr key={k} data-testid={`dag-task-${k}`}>
              <td>
                <code>{instanceLabel(k, e)}</code>
                {byId.get(e.id)?.type !== 'task' && e.mapIndex === null && (
                  <span class="dag-kind"> {byId.get(e.id)?.type}</span>
                )}
              </td>
              <td>
                <span class={`dag-state tone-${e.awaitingApproval ? 'wait' : stateTone(e.state)}`}>
                  {e.awaitingApproval ? 'awaiting approval' : e.state}
                </span>
                <TaskDetail taskKey={k} entry={e} tasks={run.tasks} />
              </td>
              <td class="num">{e.attempt}</td>
              <td class="num">{e.exitCode ?? '—'}</td>
              <td>{e.host ?? '—'}</td>
              <td>{clockOf(e.startedAt)}</td>
              <td>{tookText(e.startedAt, e.finishedAt, Date.now())}</td>
              <td>
                {approve && showDecisionButtons(e, byId.get(e.id)) && (
                  <span class="dag-decide">
                    <button
                      type="button"
                      class="btn btn-small btn-primary"
                      onClick={() => void decide(k, 'approve')}
                      data-testid="dag-approve"
                    >
                      Approve
                    </button>{' '}
                    <button
                      type="button"
                      class="btn btn-small"
                      onClick={() => void decide(k, 'reject')}
                      data-testid="dag-reject"
                    >
                      Reject
                    </button>
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** The detail after a task's state: a fan-out meter on an expanded mapped task, else the text detail. */
function TaskDetail(p: { taskKey: string; entry: ApiTaskEntry; tasks: Record<string, ApiTaskEntry> }) {
  const e = p.entry;
  const f = e.mapped && e.mapIndex === null ? fanOut(p.tasks, e.id) : null;
  if (f) return <FanOutMeter id={e.id} f={f} />;
  const text = e.mapped && e.state === 'pending' ? 'waiting to expand' : taskDetail(e);
  if (!text) return null;
  return (
    <span class="muted" data-testid={`dag-detail-${p.taskKey}`}>
      {' '}
      · {text}
    </span>
  );
}

function FanOutMeter({ id, f }: { id: string; f: FanOut }) {
  const width = (n: number) => `${f.total === 0 ? 0 : (100 * n) / f.total}%`;
  return (
    <span class="dag-fanout" data-testid={`dag-fanout-${id}`}>
      {' '}
      <span
        class="dag-fanout-bar"
        role="img"
        aria-label={`fan-out of ${id}: ${f.done} of ${f.total} instances done`}
      >
        <span class="seg tone-ok" style={{ width: width(f.success) }} />
        <span class="seg tone-fail" style={{ width: width(f.failed) }} />
        <span class="seg tone-skip" style={{ width: width(f.skipped) }} />
        <span class="seg tone-run" style={{ width: width(f.running) }} />
      </span>{' '}
      <span class="muted" data-testid={`dag-fanout-text-${id}`}>
        {fanOutText(f)}
      </span>
    </span>
  );
}

function XcomTab(p: { api: Api; dag: string; runKey: string }) {
  const [entries, setEntries] = useState<ApiXcomEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stopped = false;
    p.api
      .json<ApiXcom>(`/dags/${enc(p.dag)}/runs/${enc(p.runKey)}/xcom`)
      .then((r) => {
        if (!stopped) setEntries(r.entries);
      })
      .catch((e: unknown) => {
        if (!stopped) setError(errorText(e));
      });
    return () => {
      stopped = true;
    };
  }, [p.api, p.dag, p.runKey]);
  if (error) return <p class="empty">{error}</p>;
  if (entries === null) return <p class="empty">Loading…</p>;
  if (entries.length === 0) return <p class="empty">No XCom values in this run.</p>;
  return (
    <table class="dag-xcom" data-testid="dag-xcom">
      <thead>
        <tr>
          <th scope="col">Task</th>
          <th scope="col">Key</th>
          <th scope="col" class="num">
            Size
          </th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => {
          const v = xcomInline(e);
          return (
            <tr key={`${e.taskkey}/${e.key}`}>
              <td>
                <code>{e.taskkey}</code>
              </td>
              <td>
                <code>{e.key}</code>
              </td>
              <td class="num">{e.size} B</td>
              <td>{v === null ? <span class="muted">too large to show</span> : <code>{v}</code>}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function DagLogsTab(p: { api: Api; dag: string; run: ApiDagRun | null; runKey: string }) {
  const keys = p.run ? Object.keys(p.run.tasks).filter((k) => !p.run?.tasks[k]?.mapped) : [];
  const running = keys.find(
    (k) => p.run?.tasks[k]?.state === 'running' && !p.run?.tasks[k]?.awaitingApproval,
  );
  const [chosen, setChosen] = useState<string | null>(null);
  const taskkey = chosen ?? running ?? keys[0] ?? null;
  // Follow the first task seen running, and stay on it after it ends so its output stays readable.
  useEffect(() => {
    if (running !== undefined && chosen === null) setChosen(running);
  }, [running, chosen]);
  const [lines, setLines] = useState<LogLine[]>([]);
  const [end, setEnd] = useState<string | null>(null);
  useEffect(() => {
    if (taskkey === null) return;
    setLines([]);
    setEnd(null);
    const ctl = new AbortController();
    void p.api.tailPath(
      `/dags/${enc(p.dag)}/runs/${enc(p.runKey)}/tasks/${enc(taskkey)}/logs`,
      ctl.signal,
      (l) => setLines((old) => [...old, l]),
      (reason, detail) =>
        setEnd(
          reason === 'no-output'
            ? 'No live output: the task is not running on this node (or printed nothing).'
            : reason === 'finished'
              ? 'Task finished.'
              : `Stream error: ${detail ?? ''}`,
        ),
    );
    return () => ctl.abort();
  }, [p.api, p.dag, p.runKey, taskkey]);
  if (taskkey === null) return <p class="empty">No tasks yet.</p>;
  return (
    <div class="dag-logs">
      <label class="dag-logs-pick">
        Task{' '}
        <select
          value={taskkey}
          onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}
          data-testid="dag-log-task"
        >
          {keys.map((k) => (
            <option key={k} value={k}>
              {k} ({p.run?.tasks[k]?.state})
            </option>
          ))}
        </select>
      </label>
      <pre class="log dag-log" data-testid="dag-log">
        {lines.map((l, i) => (
          <div key={i} class={l.stream === 'stderr' ? 'stderr' : ''}>
            {l.text}
          </div>
        ))}
      </pre>
      {end && (
        <p class="muted" data-testid="dag-log-end">
          {end}
        </p>
      )}
    </div>
  );
}

function BackfillForm(p: { api: Api; dag: string; onDone(): void }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const submit = async (ev: Event): Promise<void> => {
    ev.preventDefault();
    const r = await p.api.postJson(`/dags/${enc(p.dag)}/backfill`, { from, to });
    setMessage(backfillMessage(r.status, r.text));
    p.onDone();
  };
  return (
    <form class="dag-backfill" onSubmit={(e) => void submit(e)} data-testid="dag-backfill-form">
      <label>
        from{' '}
        <input
          value={from}
          placeholder="2026-07-05T09:00:00Z"
          onInput={(e) => setFrom((e.target as HTMLInputElement).value)}
          data-testid="dag-backfill-from"
        />
      </label>{' '}
      <label>
        to{' '}
        <input
          value={to}
          placeholder="2026-07-05T09:30:00Z"
          onInput={(e) => setTo((e.target as HTMLInputElement).value)}
          data-testid="dag-backfill-to"
        />
      </label>{' '}
      <button type="submit" class="btn btn-small">
        Create runs
      </button>
      {message && (
        <span class="muted" role="status" data-testid="dag-backfill-message">
          {' '}
          {message}
        </span>
      )}
    </form>
  );
}
