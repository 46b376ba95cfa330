// The multi-tail (≋ tail): up to four jobs' log streams merged into one view, each line prefixed with its job in
// the job's colour. A stream that ends (run finished) leaves an end-of-run marker and re-attaches by itself when
// the poll shows the job running again. Presets add the failing or the running jobs.
import { Component } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { stripAnsi } from '../../../dashboard/ansi.ts';
import { appendLines, type Chunk, EMPTY_LOG, type LogBuffer } from '../../../dashboard/logchunks.ts';
import {
  addTails,
  contentOf,
  MAX_TAIL_LINES,
  MAX_TAILS,
  presetNames,
  reattachAction,
  tailPrefix,
} from '../../../dashboard/multitail.ts';
import type { LogLine } from '../../../dashboard/sse.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import { hueOf } from '../../../dashboard/week.ts';
import type { Api } from '../../io/api.ts';
import { followOnScroll } from '../../io/hooks.ts';

interface TailLine {
  n: number;
  job: string;
  kind: 'stdout' | 'stderr' | 'marker';
  text: string;
}

type FeedState = 'connecting' | 'live' | 'ended' | 'idle' | 'error' | 'gone';

const END_MARKER = '── end of run output ──';

export function MultiTail({
  jobs,
  api,
  names,
  onNames,
  onOpen,
}: {
  jobs: readonly ApiJob[];
  api: Api;
  names: readonly string[];
  onNames(names: string[]): void;
  onOpen(name: string): void;
}) {
  // The Logs tab's chunked buffer: an append re-renders the last chunk only, not every line on screen.
  const [log, setLog] = useState<LogBuffer<TailLine>>(EMPTY_LOG);
  const [states, setStates] = useState<Record<string, FeedState>>({});
  const [follow, setFollow] = useState(true);
  const [note, setNote] = useState('');
  const counter = useRef(0);
  const pending = useRef<TailLine[]>([]);
  const flushTimer = useRef(0);
  const viewRef = useRef<HTMLDivElement>(null);

  // Lines arrive from up to four streams; one render per 50 ms batch keeps a chatty job from flooding the page.
  const push = useCallback((job: string, kind: TailLine['kind'], text: string) => {
    pending.current.push({ n: ++counter.current, job, kind, text });
    if (flushTimer.current === 0) {
      flushTimer.current = window.setTimeout(() => {
        flushTimer.current = 0;
        const add = pending.current;
        pending.current = [];
        setLog((old) => appendLines(old, add, MAX_TAIL_LINES));
      }, 50);
    }
  }, []);
  useEffect(() => () => window.clearTimeout(flushTimer.current), []);
  const report = useCallback(
    (job: string, state: FeedState) =>
      setStates((old) => (old[job] === state ? old : { ...old, [job]: state })),
    [],
  );

  useLayoutEffect(() => {
    const el = viewRef.current;
    if (el && follow) el.scrollTop = el.scrollHeight;
  }, [log, follow]);

  const add = (more: string[], what: string): void => {
    const { names: next, dropped } = addTails(names, more);
    onNames(next);
    if (more.length === 0) setNote(`no ${what} job`);
    else if (dropped.length > 0) setNote(`${MAX_TAILS}-stream limit: left out ${dropped.join(', ')}`);
    else setNote('');
  };
  const remove = (name: string): void => {
    onNames(names.filter((n) => n !== name));
    setNote('');
  };
  const addable = jobs.map((j) => j.name).filter((n) => !names.includes(n));
  const byName = new Map(jobs.map((j) => [j.name, j]));

  return (
    <section class="card mt" aria-labelledby="mt-title" data-testid="multitail">
      <div class="card-head">
        <h2 class="card-title" id="mt-title">
          ≋ multi-tail
        </h2>
        <ul class="mt-chips" aria-label="Tailed jobs">
          {names.map((n) => (
            <li
              key={n}
              class="mt-chip"
              style={{ '--hue': hueOf(n) }}
              data-job={n}
              data-state={states[n] ?? 'connecting'}
            >
              <span class={`streamdot stream-${states[n] ?? 'connecting'}`} aria-hidden="true" />
              <button type="button" class="mt-chip-name" onClick={() => onOpen(n)} title={`open ${n}`}>
                {n}
              </button>
              <span class="sr-only">{states[n] ?? 'connecting'}</span>
              <button
                type="button"
                class="mt-chip-x"
                onClick={() => remove(n)}
                aria-label={`Stop tailing ${n}`}
              >
                ✕
              </button>
            </li>
          ))}
          {names.length === 0 && <li class="muted">no stream — add up to {MAX_TAILS} jobs</li>}
        </ul>
        <span class="card-meta">
          {names.length}/{MAX_TAILS} streams
        </span>
      </div>
      <div class="mt-bar">
        <button
          type="button"
          class="btn"
          onClick={() => add(presetNames(jobs, 'failing'), 'failing')}
          data-testid="mt-failing"
        >
          +failing
        </button>
        <button
          type="button"
          class="btn"
          onClick={() => add(presetNames(jobs, 'running'), 'running')}
          data-testid="mt-running"
        >
          +running
        </button>
        <label class="select">
          <span class="muted">add</span>
          <select
            value=""
            disabled={names.length >= MAX_TAILS || addable.length === 0}
            onChange={(e) => {
              const v = (e.currentTarget as HTMLSelectElement).value;
              if (v) add([v], 'such');
            }}
            aria-label="Add a job to the tail"
            data-testid="mt-add"
          >
            <option value="">job…</option>
            {addable.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="btn" disabled={names.length === 0} onClick={() => onNames([])}>
          clear streams
        </button>
        <span class="muted mt-note" aria-live="polite">
          {note}
        </span>
        <span class="toolbar-spacer" />
        <label class="toggle">
          <input
            type="checkbox"
            checked={follow}
            onChange={(e) => setFollow((e.currentTarget as HTMLInputElement).checked)}
          />
          follow
        </label>
        <button type="button" class="btn" onClick={() => setLog(EMPTY_LOG)}>
          ⌫ clear view
        </button>
      </div>
      <div
        ref={viewRef}
        class="logview mt-view is-wrap"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable log must be reachable by keyboard
        tabIndex={0}
        role="log"
        aria-label="Merged output of the tailed jobs"
        data-testid="mt-view"
        onScroll={followOnScroll(follow, setFollow)}
      >
        {log.chunks.map((c) => (
          <TailChunk key={c.id} chunk={c} names={names.join('\n')} />
        ))}
        {log.total === 0 && (
          <div class="logempty">
            {names.length === 0
              ? 'Pick jobs with +failing, +running or add; their output appears here as it is written.'
              : 'Waiting for output…'}
          </div>
        )}
      </div>
      {names.map((n) => (
        <TailFeed key={n} name={n} job={byName.get(n)} api={api} push={push} report={report} />
      ))}
    </section>
  );
}

/** One chunk of merged lines; re-renders only when the chunk or the tailed names (prefix width) change. */
class TailChunk extends Component<{ chunk: Chunk<TailLine>; names: string }> {
  override shouldComponentUpdate(next: { chunk: Chunk<TailLine>; names: string }): boolean {
    return next.chunk !== this.props.chunk || next.names !== this.props.names;
  }

  override render() {
    const names = this.props.names.split('\n');
    return this.props.chunk.lines.map((l) => (
      <div
        key={l.n}
        class={`logline mt-line${l.kind === 'stderr' ? ' logline-err' : ''}${l.kind === 'marker' ? ' mt-marker' : ''}`}
        style={{ '--hue': hueOf(l.job) }}
        data-job={l.job}
      >
        <span class="mt-prefix">{tailPrefix(l.job, names)} │</span>
        <span class="linetext">{l.text}</span>
      </div>
    ));
  }
}

/** One job's stream: no markup, it feeds the merged view and re-attaches when the job runs again. */
function TailFeed({
  name,
  job,
  api,
  push,
  report,
}: {
  name: string;
  job: ApiJob | undefined;
  api: Api;
  push(job: string, kind: TailLine['kind'], text: string): void;
  report(job: string, state: FeedState): void;
}) {
  const [generation, setGeneration] = useState(0);
  const [open, setOpen] = useState(false);
  const content = useRef(job ? contentOf(job) : null);
  const jobRef = useRef(job);
  jobRef.current = job;

  useEffect(() => {
    const j = jobRef.current;
    if (!j) {
      report(name, 'gone');
      return;
    }
    const ctrl = new AbortController();
    content.current = contentOf(j);
    const live = j.running;
    setOpen(true);
    report(name, 'connecting');
    void api.tail(
      name,
      ctrl.signal,
      (l: LogLine) => {
        report(name, 'live');
        push(name, l.stream, stripAnsi(l.text));
      },
      (reason) => {
        setOpen(false);
        if (reason === 'no-output') report(name, 'idle');
        else if (reason === 'error') report(name, 'error');
        else {
          report(name, 'ended');
          if (live && content.current) content.current.adoptNextFinish = true;
          push(name, 'marker', END_MARKER);
        }
      },
    );
    return () => ctrl.abort();
  }, [generation, job === undefined]);

  // Re-attach once the poll shows a run this stream has not shown.
  useEffect(() => {
    if (open || !job || !content.current) return;
    const action = reattachAction(content.current, job);
    if (action === 'reattach') setGeneration((g) => g + 1);
    else if (action === 'adopt') {
      content.current.finishedAt = job.last_run?.finished_at ?? null;
      content.current.adoptNextFinish = false;
    }
  }, [job, open]);
  return null;
}
