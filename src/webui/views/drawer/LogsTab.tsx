// Logs tab: the SSE replay + live tail of the job's output (fetch stream, so the bearer token is sent), with
// search (plain / regex, match count, matches only), follow, wrap, ANSI colours, download and clear.
// The stream re-attaches by itself when a new run starts or finishes, separated by an end-of-run marker.
//
// Lines live in fixed-size chunks (src/dashboard/logchunks.ts): a new line replaces only the last chunk, each chunk is a
// component that skips re-rendering when its lines, search and colour are unchanged, and off-screen chunks skip
// layout (content-visibility), so appending to a 5,000-line view costs about one chunk, not 5,000 lines.
import { Component, type ComponentChild } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { parseAnsi, stripAnsi } from '../../../dashboard/ansi.ts';
import {
  appendLines,
  type Chunk,
  chunkLines,
  EMPTY_LOG,
  type LogBuffer,
} from '../../../dashboard/logchunks.ts';
import { compileSearch, type Matcher } from '../../../dashboard/logsearch.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import { useAccess } from '../../app/access.ts';
import type { Api } from '../../io/api.ts';
import { followOnScroll } from '../../io/hooks.ts';

/** At least this many lines stay in view (up to one chunk more: whole chunks are dropped). */
const MAX_LINES = 5000;

interface Line {
  n: number;
  kind: 'stdout' | 'stderr' | 'marker';
  text: string;
}

type StreamState = 'connecting' | 'live' | 'ended' | 'no-output' | 'error';

export function LogsTab({
  job,
  api,
  onRun,
  onCancel,
  onTogglePause,
}: {
  job: ApiJob;
  api: Api;
  onRun(name: string): void;
  onCancel(name: string): void;
  onTogglePause(job: ApiJob): void;
}) {
  const { control } = useAccess();
  const [log, setLog] = useState<LogBuffer<Line>>(EMPTY_LOG as LogBuffer<Line>);
  const [state, setState] = useState<StreamState>('connecting');
  const [detail, setDetail] = useState('');
  const [generation, setGeneration] = useState(0);
  const [query, setQuery] = useState('');
  const [regex, setRegex] = useState(false);
  const [matchesOnly, setMatchesOnly] = useState(false);
  const [follow, setFollow] = useState(true);
  const [wrap, setWrap] = useState(true);
  const [colour, setColour] = useState(true);
  const counter = useRef({ lines: 0, markers: 0 }).current;
  const pending = useRef<Line[]>([]);
  const viewRef = useRef<HTMLDivElement>(null);
  // What the shown output belongs to: a running instance (pids) or a finished run (finished_at).
  const content = useRef<{ pids: string | null; finishedAt: string | null; adoptNextFinish: boolean }>({
    pids: null,
    finishedAt: null,
    adoptNextFinish: false,
  });
  const pidsKey = job.running ? job.pids.join(',') || 'running' : null;
  const finishedAt = job.last_run?.finished_at ?? null;
  const jobRef = useRef(job);
  jobRef.current = job;

  // Open the stream for the current generation.
  useEffect(() => {
    const ctrl = new AbortController();
    const j = jobRef.current;
    content.current = {
      pids: j.running ? j.pids.join(',') || 'running' : null,
      finishedAt: j.running ? null : (j.last_run?.finished_at ?? null),
      adoptNextFinish: false,
    };
    const live = j.running;
    setState('connecting');
    let flushTimer = 0;
    const flush = (): void => {
      flushTimer = 0;
      const add = pending.current;
      if (add.length === 0) return;
      pending.current = [];
      setLog((old) => appendLines(old, add, MAX_LINES));
    };
    const push = (line: Line): void => {
      pending.current.push(line);
      if (flushTimer === 0) flushTimer = window.setTimeout(flush, 50);
    };
    void api.tail(
      j.name,
      ctrl.signal,
      (l) => {
        setState('live');
        push({ n: ++counter.lines, kind: l.stream, text: l.text });
      },
      (reason, why) => {
        if (reason === 'no-output') {
          setState((s) => (s === 'live' ? 'ended' : 'no-output'));
        } else if (reason === 'error') {
          setState('error');
          setDetail(why ?? '');
        } else {
          setState('ended');
          if (live) content.current.adoptNextFinish = true;
          push({ n: -++counter.markers, kind: 'marker', text: '── end of run output ──' });
        }
        flush();
      },
    );
    return () => {
      ctrl.abort();
      if (flushTimer !== 0) window.clearTimeout(flushTimer);
      pending.current = [];
    };
  }, [generation]);

  // Re-attach when a new run shows up in the poll while no stream is open.
  useEffect(() => {
    if (state === 'connecting' || state === 'live') return;
    const c = content.current;
    if (pidsKey !== null) {
      if (pidsKey !== c.pids) setGeneration((g) => g + 1);
      return;
    }
    if (finishedAt !== null && finishedAt !== c.finishedAt) {
      if (c.adoptNextFinish) {
        c.finishedAt = finishedAt;
        c.adoptNextFinish = false;
      } else {
        setGeneration((g) => g + 1);
      }
    }
  }, [pidsKey, finishedAt, state]);

  const matcher: Matcher = useMemo(() => compileSearch(query, regex), [query, regex]);
  const searching = query !== '' && matcher.error === null;
  // Per-chunk match counts are cached on the chunk, so a new line only searches the last chunk.
  const matchCount = useMemo(() => {
    if (!searching) return 0;
    let count = 0;
    for (const c of log.chunks) count += chunkMatches(c, matcher).count;
    return count;
  }, [log, matcher, searching]);
  const shownCount = searching && matchesOnly ? matchCount : log.total;
  const outputLines = useMemo(() => {
    let n = 0;
    for (const c of log.chunks) for (const l of c.lines) if (l.kind !== 'marker') n++;
    return n;
  }, [log]);
  useLayoutEffect(() => {
    const el = viewRef.current;
    if (el && follow) el.scrollTop = el.scrollHeight;
  }, [log, matchesOnly, query, follow]);

  const download = (): void => {
    const text = chunkLines(log)
      .filter((l) => l.kind !== 'marker')
      .map((l) => stripAnsi(l.text))
      .join('\n');
    const url = URL.createObjectURL(new Blob([`${text}\n`], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `${job.name}.log`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  const captured = job.captureStdout !== false || job.captureStderr !== false;
  return (
    <div class="logs">
      <div class="logs-bar">
        {control && (
          <>
            {job.running ? (
              <button type="button" class="btn btn-stop" onClick={() => onCancel(job.name)}>
                ■ Cancel
              </button>
            ) : (
              <button
                type="button"
                class="btn btn-run"
                disabled={!job.enabled}
                onClick={() => onRun(job.name)}
                data-testid="drawer-run"
              >
                ▶ Run
              </button>
            )}
            {job.paused !== undefined && (
              <button
                type="button"
                class="btn btn-pause"
                onClick={() => onTogglePause(job)}
                title={
                  job.paused ? 'Resume its scheduled runs (p)' : 'Hold its scheduled runs for an hour (p)'
                }
                data-testid="drawer-pause"
              >
                {job.paused ? '⏵ Resume' : '⏸ Pause'}
              </button>
            )}
          </>
        )}
        <div class={`logsearch${matcher.error ? ' is-bad' : ''}`}>
          <span aria-hidden="true">/</span>
          <input
            type="search"
            value={query}
            placeholder="search output"
            aria-label="Search the log"
            onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)}
            data-testid="log-search"
          />
          <span class="logsearch-count" aria-live="polite">
            {matcher.error ? 'bad regex' : query ? `${matchCount} match${matchCount === 1 ? '' : 'es'}` : ''}
          </span>
        </div>
        <Toggle label="regex" value={regex} onChange={setRegex} />
        <Toggle label="matches only" value={matchesOnly} onChange={setMatchesOnly} />
        <span class="toolbar-spacer" />
        <Toggle label="follow" value={follow} onChange={setFollow} />
        <Toggle label="wrap" value={wrap} onChange={setWrap} />
        <Toggle label="ansi" value={colour} onChange={setColour} />
        <button
          type="button"
          class="iconbtn"
          onClick={download}
          title="Download"
          aria-label="Download the log"
        >
          ⤓
        </button>
        <button
          type="button"
          class="iconbtn"
          onClick={() => setLog(EMPTY_LOG as LogBuffer<Line>)}
          title="Clear the view"
          aria-label="Clear the view"
        >
          ⌫
        </button>
      </div>
      <div
        ref={viewRef}
        class={`logview${wrap ? ' is-wrap' : ''}`}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable log must be reachable by keyboard
        tabIndex={0}
        role="log"
        aria-label={`Output of ${job.name}`}
        data-testid="logview"
        onScroll={followOnScroll(follow, setFollow)}
      >
        {log.chunks.map((c) => (
          <LogChunk
            key={c.id}
            chunk={c}
            matcher={searching ? matcher : null}
            matchesOnly={matchesOnly}
            colour={colour}
          />
        ))}
        {shownCount === 0 && (
          <div class="logempty">
            {state === 'connecting' && 'connecting to the log stream…'}
            {state === 'no-output' &&
              (captured
                ? 'No output retained yet. Run the job to watch it live.'
                : 'This job does not capture its output (captureStdout/captureStderr are off).')}
            {state === 'error' && `The log stream failed: ${detail}`}
            {(state === 'live' || state === 'ended') && (query ? 'No line matches.' : 'No output.')}
          </div>
        )}
      </div>
      <div class="logs-foot muted">
        <span class={`streamdot stream-${state}`} aria-hidden="true" />
        {state === 'live'
          ? 'live'
          : state === 'connecting'
            ? 'connecting'
            : state === 'error'
              ? 'error'
              : 'idle'}
        {' · '}
        {outputLines} lines
        {job.running ? ' · run in progress' : ' · waiting for the next run'}
      </div>
    </div>
  );
}

function Toggle({ label, value, onChange }: { label: string; value: boolean; onChange(v: boolean): void }) {
  return (
    <label class="toggle">
      <input
        type="checkbox"
        checked={value}
        onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)}
      />
      {label}
    </label>
  );
}

const NO_RANGES: Array<[number, number]> = [];

interface ChunkSearch {
  matcher: Matcher;
  count: number;
  ranges: Array<Array<[number, number]>>;
}
const searchCache = new WeakMap<Chunk<Line>, ChunkSearch>();

/** The search hits of one chunk, computed once per chunk and matcher. */
function chunkMatches(chunk: Chunk<Line>, matcher: Matcher): ChunkSearch {
  const hit = searchCache.get(chunk);
  if (hit !== undefined && hit.matcher === matcher) return hit;
  let count = 0;
  const ranges = chunk.lines.map((line) => {
    if (line.kind === 'marker') return NO_RANGES;
    const r = matcher.ranges(stripAnsi(line.text));
    count += r.length;
    return r;
  });
  const out = { matcher, count, ranges };
  searchCache.set(chunk, out);
  return out;
}

interface ChunkProps {
  chunk: Chunk<Line>;
  matcher: Matcher | null;
  matchesOnly: boolean;
  colour: boolean;
}

/** One chunk of lines; re-renders only when its own inputs change (a class: preact core has no memo). */
class LogChunk extends Component<ChunkProps> {
  override shouldComponentUpdate(next: ChunkProps): boolean {
    const p = this.props;
    return (
      next.chunk !== p.chunk ||
      next.matcher !== p.matcher ||
      next.colour !== p.colour ||
      (next.matcher !== null && next.matchesOnly !== p.matchesOnly)
    );
  }

  override render() {
    const { chunk, matcher, matchesOnly, colour } = this.props;
    const found = matcher === null ? null : chunkMatches(chunk, matcher);
    if (found !== null && matchesOnly && found.count === 0) return null;
    return (
      <div class="logchunk">
        {chunk.lines.map((line, i) => {
          const ranges = found === null ? NO_RANGES : found.ranges[i]!;
          if (line.kind === 'marker')
            return (
              <div key={line.n} class="logline logline-marker">
                {line.text}
              </div>
            );
          if (found !== null && matchesOnly && ranges.length === 0) return null;
          return <LogLineView key={line.n} line={line} ranges={ranges} colour={colour} />;
        })}
      </div>
    );
  }
}

interface LineProps {
  line: Line;
  ranges: Array<[number, number]>;
  colour: boolean;
}

/** One output line; a new line in the last chunk leaves its neighbours alone. */
class LogLineView extends Component<LineProps> {
  override shouldComponentUpdate(n: LineProps): boolean {
    const p = this.props;
    return n.line !== p.line || n.ranges !== p.ranges || n.colour !== p.colour;
  }

  override render() {
    const { line, ranges, colour } = this.props;
    return (
      <div class={`logline${line.kind === 'stderr' ? ' logline-err' : ''}`}>
        <span class="lineno" aria-hidden="true">
          {line.n}
        </span>
        <span class="linetext">
          <LineText text={line.text} ranges={ranges} colour={colour} />
        </span>
      </div>
    );
  }
}

const ANSI_CLASS = (fg: number, bold: boolean, dim: boolean): string =>
  `${fg >= 0 ? `ansi-${fg}` : ''}${bold ? ' ansi-b' : ''}${dim ? ' ansi-d' : ''}`.trim();

/** A line's text with ANSI styling and search highlights (ranges are over the escape-free text). */
function LineText({
  text,
  ranges,
  colour,
}: {
  text: string;
  ranges: Array<[number, number]>;
  colour: boolean;
}) {
  const spans = parseAnsi(text, colour);
  if (ranges.length === 0 && spans.length === 1 && spans[0]!.fg < 0 && !spans[0]!.bold && !spans[0]!.dim) {
    return <>{spans[0]!.text}</>;
  }
  const out: ComponentChild[] = [];
  let pos = 0;
  let r = 0;
  let key = 0;
  for (const s of spans) {
    const cls = ANSI_CLASS(s.fg, s.bold, s.dim);
    let i = 0;
    while (i < s.text.length) {
      const abs = pos + i;
      while (r < ranges.length && ranges[r]![1] <= abs) r++;
      const range = ranges[r];
      let end = s.text.length;
      let hit = false;
      if (range !== undefined) {
        if (range[0] <= abs) {
          hit = true;
          end = Math.min(end, range[1] - pos);
        } else {
          end = Math.min(end, range[0] - pos);
        }
      }
      const piece = s.text.slice(i, end);
      const node = hit ? (
        <mark key={key++} class={cls || undefined}>
          {piece}
        </mark>
      ) : cls ? (
        <span key={key++} class={cls}>
          {piece}
        </span>
      ) : (
        piece
      );
      out.push(node);
      i = end;
    }
    pos += s.text.length;
  }
  return <>{out}</>;
}
