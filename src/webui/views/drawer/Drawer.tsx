// The job drawer (URL `#job/<name>/<tab>`): header facts and the Logs / History / Schedule tabs.

import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { ownerCell } from '../../../dashboard/cluster.ts';
import { compileJob } from '../../../dashboard/engine.ts';
import { formatAge, formatDuration, parseIso } from '../../../dashboard/format.ts';
import { DRAWER_TABS, type DrawerTab } from '../../../dashboard/route.ts';
import { overdueChecks } from '../../../dashboard/sla.ts';
import { jobStatus } from '../../../dashboard/status.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import { useFocusTrap } from '../../chrome/Dialog.tsx';
import { StatusBadge } from '../../chrome/StatusBadge.tsx';
import type { Api } from '../../io/api.ts';
import { copyText } from '../../io/hooks.ts';
import { ExitBadge } from '../board/JobRow.tsx';
import { HistoryTab } from './HistoryTab.tsx';
import { LogsTab } from './LogsTab.tsx';
import { LiveUsage, ResourcesTab } from './ResourcesTab.tsx';
import { ScheduleTab } from './ScheduleTab.tsx';
import { SlotStrip } from './SlotStrip.tsx';

const TAB_LABEL: Record<DrawerTab, string> = {
  logs: 'Logs',
  history: 'History',
  schedule: 'Schedule',
  resources: 'Resources',
};

export interface DrawerProps {
  name: string;
  job: ApiJob | undefined;
  jobs: readonly ApiJob[];
  tab: DrawerTab;
  now: number;
  nodeName: string | null;
  api: Api;
  onTab(tab: DrawerTab): void;
  onClose(): void;
  onRun(name: string): void;
  onCancel(name: string): void;
  onTogglePause(job: ApiJob): void;
}

export function Drawer(p: DrawerProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [copied, setCopied] = useState(false);
  useFocusTrap(ref, p.onClose);
  const job = p.job;
  return (
    <div class="drawer-layer">
      <div class="drawer-scrim" onClick={p.onClose} aria-hidden="true" />
      <div
        ref={ref}
        class="drawer"
        role="dialog"
        aria-modal="true"
        aria-labelledby="drawer-title"
        tabIndex={-1}
        data-testid="drawer"
      >
        <div class="drawer-head">
          <div class="drawer-title-row">
            {job && <StatusBadge status={jobStatus(job)} />}
            <h2 id="drawer-title" class="drawer-title">
              {p.name}
            </h2>
            <div class="drawer-tools">
              {job && (
                <button
                  type="button"
                  class="iconbtn iconbtn-text"
                  onClick={async () => {
                    if (await copyText(job.command)) {
                      setCopied(true);
                      window.setTimeout(() => setCopied(false), 1400);
                    }
                  }}
                  title="Copy the command"
                >
                  {copied ? 'copied' : 'copy cmd'}
                </button>
              )}
              <button
                type="button"
                class="iconbtn"
                onClick={p.onClose}
                aria-label="Close the drawer"
                data-autofocus
              >
                ✕
              </button>
            </div>
          </div>
          {job && overdueChecks(job) && (
            <p class="drawer-overdue" data-testid="drawer-overdue">
              ⚠ OVERDUE · {overdueChecks(job)!.join(', ')}
            </p>
          )}
          {job ? (
            <DrawerFacts
              job={job}
              now={p.now}
              nodeName={p.nodeName}
              live={<LiveUsage job={job} api={p.api} />}
            />
          ) : (
            <p class="muted">No such job.</p>
          )}
          {job && <SlotStrip key={job.name} name={job.name} api={p.api} />}
        </div>
        <div class="tabs" role="tablist" aria-label="Job views">
          {DRAWER_TABS.map((t) => (
            <button
              key={t}
              type="button"
              role="tab"
              id={`tab-${t}`}
              aria-selected={p.tab === t}
              aria-controls={`panel-${t}`}
              tabIndex={p.tab === t ? 0 : -1}
              class={p.tab === t ? 'tab is-on' : 'tab'}
              onClick={() => p.onTab(t)}
              onKeyDown={(e) => {
                const i = DRAWER_TABS.indexOf(t);
                if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
                  e.preventDefault();
                  const next =
                    DRAWER_TABS[
                      (i + (e.key === 'ArrowRight' ? 1 : DRAWER_TABS.length - 1)) % DRAWER_TABS.length
                    ]!;
                  p.onTab(next);
                  (
                    e.currentTarget.parentElement?.querySelector(`#tab-${next}`) as HTMLElement | null
                  )?.focus();
                }
              }}
              data-testid={`tab-${t}`}
            >
              {TAB_LABEL[t]}
            </button>
          ))}
        </div>
        <div class="drawer-body" role="tabpanel" id={`panel-${p.tab}`} aria-labelledby={`tab-${p.tab}`}>
          {job && p.tab === 'logs' && (
            <LogsTab
              key={job.name}
              job={job}
              api={p.api}
              onRun={p.onRun}
              onCancel={p.onCancel}
              onTogglePause={p.onTogglePause}
            />
          )}
          {job && p.tab === 'history' && <HistoryTab key={job.name} job={job} api={p.api} now={p.now} />}
          {job && p.tab === 'schedule' && <ScheduleTab job={job} jobs={p.jobs} api={p.api} now={p.now} />}
          {job && p.tab === 'resources' && <ResourcesTab key={job.name} job={job} api={p.api} />}
        </div>
      </div>
    </div>
  );
}

function DrawerFacts({
  job,
  now,
  nodeName,
  live,
}: {
  job: ApiJob;
  now: number;
  nodeName: string | null;
  live: ComponentChildren;
}) {
  const c = compileJob(job);
  const last = job.last_run;
  const lastAt = parseIso(last?.finished_at);
  const owner = ownerCell(job, nodeName);
  return (
    <div class="facts">
      <span class="fact">
        schedule <code class="sched">{job.schedule}</code>{' '}
        <span class="muted">{c.error ?? c.description}</span>
      </span>
      {c.frameLabel !== 'UTC' && <span class="fact">zone {c.frameLabel}</span>}
      {job.running && job.pids.length > 0 && (
        <span class="fact">
          pid <b>{job.pids.join(', ')}</b>
        </span>
      )}
      {live}
      {last && lastAt !== null && (
        <span class="fact">
          last <b>{formatAge(now - lastAt)}</b> <ExitBadge code={last.exit_code} />
        </span>
      )}
      {last && (
        <span class="fact">
          took <b>{formatDuration(last.duration)}</b>
        </span>
      )}
      {job.clusterPolicy && (
        <span class="fact">
          cluster: <b>{job.clusterPolicy}</b>
          {owner.kind === 'other' ? '' : ` → ${owner.text}`}
        </span>
      )}
    </div>
  );
}
