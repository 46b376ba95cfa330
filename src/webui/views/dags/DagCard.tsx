// The DAG card (spec 06 §9.2): one row per DAG with its schedule, last run, running count and a Trigger
// button; a row opens the DAG drawer. Polls `/dags` itself and stays hidden while the list is empty.
import { useCallback, useState } from 'preact/hooks';
import {
  type ApiDag,
  type ApiDagTrigger,
  clockOf,
  dagShapeText,
  formatDagHash,
  outcomeSegments,
  outcomeText,
  parseDagHash,
  runningCount,
  scheduleText,
  stateTone,
} from '../../../dashboard/dag.ts';
import { formatAge } from '../../../dashboard/format.ts';
import { useAccess } from '../../app/access.ts';
import type { Api } from '../../io/api.ts';
import { useHashChange, usePolling } from '../../io/hooks.ts';
import { DagDrawer } from './DagDrawer.tsx';

export function DagCard({
  api,
  intervalMs,
  shown = true,
  onCount,
}: {
  api: Api;
  intervalMs: number;
  /** false: the card is hidden (the toolbar's ⧉ dags button); an open drawer stays open. */
  shown?: boolean;
  /** How many DAGs `/dags` lists, after each poll (the toolbar shows its button only when > 0). */
  onCount?(n: number): void;
}) {
  const [dags, setDags] = useState<ApiDag[]>([]);
  const { control } = useAccess();
  const [target, setTarget] = useState(() => parseDagHash(location.hash));
  const open = target?.name ?? null;
  // The drawer lives in the URL (`#dag/<name>[/<runKey>]`) so a link can point at a run; Back closes it.
  useHashChange(() => setTarget(parseDagHash(location.hash)));
  const setOpen = useCallback((name: string | null) => {
    if (name === null) history.pushState(null, '', location.pathname + location.search);
    else history.pushState(null, '', formatDagHash(name, null));
    setTarget(name === null ? null : { name, runKey: null });
  }, []);
  const setRunKey = useCallback((name: string, runKey: string | null) => {
    history.replaceState(null, '', formatDagHash(name, runKey));
  }, []);
  const [note, setNote] = useState<string | null>(null);
  const [nonce, setNonce] = useState(0);

  usePolling(
    async (live) => {
      try {
        const list = await api.json<ApiDag[]>('/dags');
        if (live()) {
          setDags(list);
          onCount?.(list.length);
        }
      } catch {
        // the jobs poll reports connection trouble; the card keeps its last list
      }
    },
    intervalMs,
    [api, intervalMs, nonce, onCount],
  );

  const trigger = useCallback(
    async (name: string) => {
      const r = await api.post(`/dags/${encodeURIComponent(name)}/trigger`);
      let text = r.text;
      try {
        const v = JSON.parse(r.text) as Partial<ApiDagTrigger> & { error?: string };
        text = r.ok ? `triggered ${name}: ${v.runKey}` : `trigger failed: ${v.error ?? r.status}`;
      } catch {
        // keep the raw text
      }
      setNote(text);
      setNonce((n) => n + 1);
    },
    [api],
  );

  const openDag = dags.find((d) => d.name === open);
  if (dags.length === 0) return null;
  return (
    <>
      {shown && (
        <section class="card dags" aria-labelledby="dags-title" data-testid="dag-card">
          <div class="card-head">
            <h2 id="dags-title" class="card-title">
              <span aria-hidden="true">┌─ </span>DAGs
            </h2>
            <span class="card-meta" data-testid="dag-note" role="status">
              {note ?? `${dags.length} configured`}
            </span>
          </div>
          <table class="dag-table">
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">DAG</th>
                <th scope="col">Schedule</th>
                <th scope="col">Latest run</th>
                <th scope="col" class="num">
                  Running
                </th>
                <th scope="col" class="num">
                  Runs
                </th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {dags.map((d) => (
                <tr key={d.name} data-testid={`dag-row-${d.name}`}>
                  <td data-testid="dag-status">
                    {d.latestRun ? (
                      <span class={`dag-pill tone-${stateTone(d.latestRun.state)}`}>{d.latestRun.state}</span>
                    ) : (
                      <span class="muted">no runs</span>
                    )}
                  </td>
                  <td>
                    <button
                      type="button"
                      class="linkbtn"
                      onClick={() => setOpen(d.name)}
                      data-testid="dag-open"
                    >
                      {d.name}
                    </button>
                    <div class="muted dag-shape" data-testid="dag-shape">
                      {dagShapeText(d.tasks)}
                    </div>
                  </td>
                  <td>
                    <code>{scheduleText(d)}</code>
                  </td>
                  <td data-testid="dag-last">
                    {d.latestRun ? <LatestRun dag={d} /> : <span class="muted">never run</span>}
                  </td>
                  <td class="num" data-testid="dag-running">
                    {runningCount(d)}
                  </td>
                  <td class="num" data-testid="dag-total">
                    {d.totalRuns ?? 0}
                  </td>
                  <td>
                    {control && (
                      <>
                        <button
                          type="button"
                          class="btn btn-small"
                          onClick={() => void trigger(d.name)}
                          data-testid="dag-trigger"
                        >
                          ▶ Trigger
                        </button>{' '}
                      </>
                    )}
                    <button
                      type="button"
                      class="btn btn-small"
                      onClick={() => setOpen(d.name)}
                      aria-label={`Open ${d.name}`}
                      data-testid="dag-open-button"
                    >
                      Open
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {openDag && (
        <DagDrawer
          key={`${openDag.name}/${target?.runKey ?? ''}`}
          api={api}
          dag={openDag}
          initialRunKey={target?.runKey ?? null}
          onRunKey={(k) => setRunKey(openDag.name, k)}
          onClose={() => setOpen(null)}
          onTrigger={() => void trigger(openDag.name)}
        />
      )}
    </>
  );
}

/** The latest run's state and age over a stacked bar of the kept runs' outcomes. */
function LatestRun({ dag }: { dag: ApiDag }) {
  const l = dag.latestRun!;
  const segments = outcomeSegments(dag.runCounts);
  return (
    <>
      {segments.length > 0 && (
        <span class="dag-outcomes" role="img" aria-label={outcomeText(segments)} data-testid="dag-outcomes">
          {segments.map((seg) => (
            <span key={seg.tone} class={`seg tone-${seg.tone}`} style={{ width: `${seg.percent}%` }} />
          ))}
        </span>
      )}{' '}
      <span class={`dag-state tone-${stateTone(l.state)}`}>{l.state}</span>{' '}
      <span class="muted" title={`created ${clockOf(l.createdAt)} UTC`}>
        {l.kind} · {formatAge(Date.now() - l.createdAt * 1000)}
      </span>
    </>
  );
}
