// The sub-tab panels of the ⛁ state inspector: overview, node retries and slots, lease rows, documents (KV,
// cursors, idempotency keys: metadata only), artifacts and record streams, with a shared paged table.
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { errorText } from '../../../dashboard/format.ts';
import { formatBytes } from '../../../dashboard/resources.ts';
import {
  type ApiArtifacts,
  type ApiDocument,
  type ApiDocuments,
  type ApiRecord,
  type ApiRecords,
  type ApiState,
  DOC_PREFIX,
  docNamespaces,
  epochText,
  leaseState,
  PAGE_SIZE,
  pageOf,
  recordSummary,
  type StateTab,
  scopesOfManifests,
  streamsUnder,
  TAB_PREFIX,
} from '../../../dashboard/state.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import type { Api } from '../../io/api.ts';

export function StatePanel({
  tab,
  state,
  api,
  jobs,
}: {
  tab: StateTab;
  state: ApiState;
  api: Api;
  jobs: readonly ApiJob[];
}) {
  const prefix = TAB_PREFIX[tab];
  const docPrefix = DOC_PREFIX[tab];
  if (tab === 'overview') return <Overview state={state} />;
  if (docPrefix) return <Documents key={docPrefix} prefix={docPrefix} state={state} api={api} jobs={jobs} />;
  if (tab === 'locks') return <Locks state={state} />;
  if (tab === 'artifacts') return <Artifacts state={state} api={api} />;
  return (
    <>
      {tab === 'retries' && <NodeRetries state={state} />}
      {tab === 'slots' && <NodeSlots state={state} />}
      {prefix && <Streams key={prefix} prefix={prefix} state={state} api={api} />}
    </>
  );
}

function Overview({ state }: { state: ApiState }) {
  const rec = state.records;
  const prefixes = Object.entries(rec?.prefixes ?? {}).sort((a, b) => b[1].records - a[1].records);
  const ops = Object.entries(state.stats?.ops ?? {}).sort((a, b) => b[1] - a[1]);
  return (
    <div class="state-overview">
      <div class="stats">
        <Fact label="backend" value={state.backend ?? '—'} />
        <Fact label="namespace" value={state.namespace ?? '—'} />
        <Fact label="topology" value={state.topology ?? '—'} />
        <Fact label="streams" value={String(rec?.streams ?? '—')} />
        <Fact label="records" value={String(rec?.records ?? '—')} testid="state-records" />
        <Fact label="node" value={state.node?.host ?? '—'} />
      </div>
      {state.error && <p class="empty">The store did not list its streams: {state.error}</p>}
      <div class="state-cols">
        <Table
          caption="Record streams by prefix"
          heads={['Prefix', 'Streams', 'Records']}
          testid="state-prefixes"
        >
          {prefixes.map(([p, v]) => (
            <tr key={p} data-prefix={p}>
              <td>
                <code>{p}/</code>
              </td>
              <td>{v.streams}</td>
              <td>{v.records}</td>
            </tr>
          ))}
        </Table>
        {ops.length > 0 && (
          <Table caption="Store operations since start" heads={['Operation', 'Calls', 'Errors']}>
            {ops.slice(0, 14).map(([op, n]) => (
              <tr key={op}>
                <td>
                  <code>{op}</code>
                </td>
                <td>{n}</td>
                <td class={(state.stats?.errors?.[op] ?? 0) > 0 ? 'tone-bad' : ''}>
                  {state.stats?.errors?.[op] ?? 0}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </div>
    </div>
  );
}

function NodeRetries({ state }: { state: ApiState }) {
  const retries = state.node?.retries ?? [];
  return (
    <Table
      caption={`Retries armed on ${state.node?.host ?? 'this node'}`}
      heads={['Job', 'Attempt', 'Next retry', 'Delay']}
      empty="no retry is armed on this node"
    >
      {retries.map((r) => (
        <tr key={r.job}>
          <td>{r.job}</td>
          <td>{r.attempt}</td>
          <td>{r.nextRetryAt ?? '—'}</td>
          <td>{r.delaySeconds}s</td>
        </tr>
      ))}
    </Table>
  );
}

function NodeSlots({ state }: { state: ApiState }) {
  const slots = state.node?.slots ?? [];
  return (
    <Table
      caption={`Cluster slots held by ${state.node?.host ?? 'this node'}`}
      heads={['Slot', 'Holder', 'Fence', 'Expires', 'Refs']}
      empty="this node holds no cluster slot"
    >
      {slots.map((s) => (
        <tr key={s.slot}>
          <td>{s.slot}</td>
          <td>{s.holder}</td>
          <td>{s.fence}</td>
          <td>{typeof s.expiresAt === 'number' ? epochText(s.expiresAt) : (s.expiresAt ?? '—')}</td>
          <td>{s.refs ?? '—'}</td>
        </tr>
      ))}
    </Table>
  );
}

function Locks({ state }: { state: ApiState }) {
  const [page, setPage] = useState(0);
  if (!state.leases) {
    return <p class="empty">This daemon's /state does not list leases (job locks, slots, retry claims).</p>;
  }
  const nowSec = Date.now() / 1000;
  const p = pageOf(state.leases, page);
  return (
    <>
      <Table
        caption="Leases: job locks, cluster slots, retry claims"
        heads={['Lease', 'State', 'Holder', 'Fence', 'Expires']}
        empty="no lease has ever been taken"
        testid="state-locks"
      >
        {p.rows.map((l) => {
          const st = leaseState(l.expiresAt, nowSec);
          return (
            <tr key={l.name} data-lease={l.name}>
              <td>
                <code>{l.name}</code>
              </td>
              <td class={`lease-${st}`}>{st}</td>
              <td>{l.holder}</td>
              <td>{l.fence}</td>
              <td>{epochText(l.expiresAt)}</td>
            </tr>
          );
        })}
      </Table>
      <Pager page={p.page} pages={p.pages} total={state.leases.length} onPage={setPage} />
    </>
  );
}

interface DocRow extends ApiDocument {
  namespace: string;
}

function Documents({
  prefix,
  state,
  api,
  jobs,
}: {
  prefix: 'kv/' | 'cursor/' | 'idem/';
  state: ApiState;
  api: Api;
  jobs: readonly ApiJob[];
}) {
  const [rows, setRows] = useState<DocRow[] | null>(null);
  const [hidden, setHidden] = useState<string[]>([]);
  const [page, setPage] = useState(0);
  const names = useMemo(() => jobs.map((j) => j.name), [jobs]);
  const hosts = useMemo(() => streamsUnder(state, 'manifests/').map((s) => s.stream), [state]);
  const inventory = JSON.stringify(state.documents ?? null);
  useEffect(() => {
    let live = true;
    (async () => {
      // Without a document inventory, the scopes the daemons advertised in their manifests are asked for too.
      let scopes: string[] = [];
      if (!state.documents) {
        const manifests = await Promise.all(
          hosts.map((s) =>
            api
              .json<ApiRecords>(`/state/records?stream=${encodeURIComponent(s)}&limit=1`)
              .then((r) => r.records)
              .catch(() => [] as ApiRecord[]),
          ),
        );
        scopes = scopesOfManifests(manifests.flat());
      }
      const namespaces = docNamespaces(state, prefix, names, scopes);
      const out: DocRow[] = [];
      const closed: string[] = [];
      for (const ns of namespaces) {
        try {
          const d = await api.json<ApiDocuments>(`/state/documents?ns=${encodeURIComponent(ns)}`);
          if (d.enumerable === false) closed.push(ns);
          for (const doc of d.documents) out.push({ ...doc, namespace: ns });
        } catch {
          // one unreadable namespace leaves the others listed
        }
      }
      if (!live) return;
      out.sort((a, b) => (a.namespace + a.key < b.namespace + b.key ? -1 : 1));
      setRows(out);
      setHidden(closed);
    })();
    return () => {
      live = false;
    };
  }, [prefix, inventory, names.join('\n'), hosts.join('\n')]);

  if (rows === null) return <p class="empty">loading…</p>;
  const p = pageOf(rows, page);
  const what = prefix === 'kv/' ? 'KV entries' : prefix === 'cursor/' ? 'cursors' : 'idempotency keys';
  const heads =
    prefix === 'idem/' ? ['Scope', 'Key', 'Claimed', 'Expires'] : ['Scope', 'Key', 'Type', 'Size', 'Updated'];
  return (
    <>
      <Table
        caption={`${what} (values are never shown)`}
        heads={heads}
        empty={`no ${what}`}
        testid={`state-docs-${prefix.slice(0, -1)}`}
      >
        {p.rows.map((d) => (
          <tr key={`${d.namespace}|${d.key}`} data-ns={d.namespace} data-key={d.key}>
            <td>
              <code>{d.namespace.slice(prefix.length)}</code>
            </td>
            <td>{d.key}</td>
            {prefix === 'idem/' ? (
              <>
                <td>{epochText(d.claimedAt ?? d.updatedAt)}</td>
                <td>{d.expiresAt ? epochText(d.expiresAt) : 'never'}</td>
              </>
            ) : (
              <>
                <td>{d.valueType ?? '—'}</td>
                <td>{d.valueSize === undefined ? '—' : formatBytes(d.valueSize)}</td>
                <td>{epochText(d.updatedAt)}</td>
              </>
            )}
          </tr>
        ))}
      </Table>
      <Pager page={p.page} pages={p.pages} total={rows.length} onPage={setPage} />
      {hidden.length > 0 && rows.length === 0 && (
        <p class="muted small">
          This store does not enumerate {what} over the inspector ({hidden.length} scopes asked).
        </p>
      )}
    </>
  );
}

function Artifacts({ state, api }: { state: ApiState; api: Api }) {
  const scopes = useMemo(
    () => streamsUnder(state, 'artifacts/').map((s) => s.stream.slice('artifacts/'.length)),
    [state],
  );
  const [rows, setRows] = useState<(ApiArtifacts['artifacts'][number] & { scope: string })[] | null>(null);
  const [page, setPage] = useState(0);
  useEffect(() => {
    let live = true;
    Promise.all(
      scopes.map((scope) =>
        api
          .json<ApiArtifacts>(`/state/artifacts?scope=${encodeURIComponent(scope)}`)
          .then((r) => r.artifacts.map((a) => ({ ...a, scope })))
          .catch(() => []),
      ),
    ).then((all) => {
      if (live) setRows(all.flat());
    });
    return () => {
      live = false;
    };
  }, [scopes.join('\n')]);
  if (rows === null) return <p class="empty">loading…</p>;
  const p = pageOf(rows, page);
  return (
    <>
      <Table
        caption="Artifacts (newest version per name)"
        heads={['Scope', 'Name', 'Size', 'SHA-256', 'At']}
        empty="no artifacts"
      >
        {p.rows.map((a) => (
          <tr key={`${a.scope}|${a.name}`}>
            <td>
              <code>{a.scope}</code>
            </td>
            <td>{a.name}</td>
            <td>{formatBytes(a.size)}</td>
            <td>
              <code title={a.sha256}>{a.sha256.slice(0, 12)}…</code>
            </td>
            <td>{epochText(a.at)}</td>
          </tr>
        ))}
      </Table>
      <Pager page={p.page} pages={p.pages} total={rows.length} onPage={setPage} />
    </>
  );
}

/** Streams under a prefix and, for the one picked, its newest records. */
function Streams({ prefix, state, api }: { prefix: string; state: ApiState; api: Api }) {
  const streams = streamsUnder(state, prefix);
  const [page, setPage] = useState(0);
  const [open, setOpen] = useState<string | null>(null);
  const p = pageOf(streams, page);
  return (
    <div class="state-streams">
      <Table
        caption={`Streams ${prefix}*`}
        heads={['Stream', 'Records', 'Newest', '']}
        empty={`no ${prefix} streams`}
        testid="state-streams"
      >
        {p.rows.map((s) => (
          <tr key={s.stream} class={open === s.stream ? 'is-open' : ''} data-stream={s.stream}>
            <td>
              <code>{s.stream}</code>
            </td>
            <td>{s.count}</td>
            <td>{epochText(s.newestAt)}</td>
            <td>
              <button
                type="button"
                class="btn btn-small"
                aria-expanded={open === s.stream}
                onClick={() => setOpen(open === s.stream ? null : s.stream)}
              >
                {open === s.stream ? 'hide' : 'records'}
              </button>
            </td>
          </tr>
        ))}
      </Table>
      <Pager page={p.page} pages={p.pages} total={streams.length} onPage={setPage} />
      {open && <Records key={open} stream={open} api={api} />}
    </div>
  );
}

function Records({ stream, api }: { stream: string; api: Api }) {
  const [records, setRecords] = useState<ApiRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [page, setPage] = useState(0);
  useEffect(() => {
    let live = true;
    api
      .json<ApiRecords>(`/state/records?stream=${encodeURIComponent(stream)}&limit=200`)
      .then((r) => {
        if (live) setRecords(r.records);
      })
      .catch((err: unknown) => {
        if (live) setError(errorText(err));
      });
    return () => {
      live = false;
    };
  }, [stream]);
  if (error !== null) return <p class="empty">{error}</p>;
  if (records === null) return <p class="empty">loading…</p>;
  const p = pageOf(records, page);
  return (
    <>
      <Table
        caption={`${stream}: newest first`}
        heads={['Id', 'Written', 'Writer', 'Data']}
        empty="no records"
        testid="state-records-table"
      >
        {p.rows.map((r) => (
          <tr key={r.id}>
            <td>{r.id}</td>
            <td>{epochText(r.writtenAt)}</td>
            <td>{r.writer}</td>
            <td class="rec-data">
              <code>{recordSummary(r.data)}</code>
            </td>
          </tr>
        ))}
      </Table>
      <Pager page={p.page} pages={p.pages} total={records.length} onPage={setPage} />
    </>
  );
}

function Table({
  caption,
  heads,
  children,
  empty,
  testid,
}: {
  caption: string;
  heads: string[];
  children: ComponentChildren;
  empty?: string;
  testid?: string;
}) {
  const rows = Array.isArray(children) ? children.flat().filter(Boolean) : children ? [children] : [];
  return (
    <table class="stable" data-testid={testid}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          {heads.map((h, i) => (
            <th key={i} scope="col">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr class="empty-row">
            <td colSpan={heads.length}>{empty ?? 'nothing here'}</td>
          </tr>
        ) : (
          children
        )}
      </tbody>
    </table>
  );
}

function Pager({
  page,
  pages,
  total,
  onPage,
}: {
  page: number;
  pages: number;
  total: number;
  onPage(p: number): void;
}) {
  if (total <= PAGE_SIZE) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button
        type="button"
        class="btn btn-small"
        disabled={page === 0}
        onClick={() => onPage(page - 1)}
        aria-label="Previous page"
      >
        ‹
      </button>
      <span>
        page {page + 1} / {pages} <span class="muted">({total})</span>
      </span>
      <button
        type="button"
        class="btn btn-small"
        disabled={page >= pages - 1}
        onClick={() => onPage(page + 1)}
        aria-label="Next page"
      >
        ›
      </button>
    </nav>
  );
}

function Fact({ label, value, testid }: { label: string; value: string; testid?: string }) {
  return (
    <div class="stat">
      <div class="stat-label">{label}</div>
      <div class="stat-value" data-testid={testid}>
        {value}
      </div>
    </div>
  );
}
