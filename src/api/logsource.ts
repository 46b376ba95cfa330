// What a job's log stream replays and follows (spec 06 §5.7), apart from how it is framed: the web edge
// frames it as server-sent events, the MCP tools read the same source.
import type { RunningRun } from '../scheduler/view.ts';
import type { WebContext } from './context.ts';

export interface LineEvent {
  stream: 'stdout' | 'stderr';
  line: string;
}

/** What a stream follows: replayed lines, then (optionally) live lines until `end`. */
export interface StreamSource {
  replay: readonly LineEvent[];
  /** Subscribe to live lines and the end; returns the unsubscribe. Absent for a finished run. */
  follow?: (onLine: (l: LineEvent) => void, onEnd: () => void) => () => void;
  /** No buffer at all: a single `end` with reason `no-output`. */
  empty?: boolean;
}

/** The most recently started of a job's running instances (the one its log views follow). */
export function newestRun(running: readonly RunningRun[]): RunningRun | null {
  let newest: RunningRun | null = null;
  for (const r of running) if (newest === null || r.startedAt >= newest.startedAt) newest = r;
  return newest;
}

/** The source of `/jobs/{name}/logs`: the newest running instance, else the last finished run. */
export function jobLogSource(ctx: WebContext, name: string): StreamSource {
  const newest = newestRun(ctx.scheduler.running(name));
  if (newest) {
    const runId = newest.runId;
    return {
      replay: newest.lines,
      follow: (onLine, onEnd) => {
        return ctx.scheduler.subscribe((e) => {
          if (e.type === 'output-line') {
            if (e.runId === runId) onLine({ stream: e.line.stream, line: e.line.line });
          } else if (e.type === 'run-finished' && e.run.id === runId) onEnd();
        });
      },
    };
  }
  const last = ctx.scheduler.history(name)?.lastRun();
  if (!last) return { replay: [], empty: true };
  return { replay: last.lines };
}
