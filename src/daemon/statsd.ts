// statsd (spec 02 §12) as a subscriber of the scheduler's events: a start gauge when a job's
// process starts, the stop metrics when that run is recorded.
import { statsdStart, statsdStop } from '../report/index.ts';
import type { EventListener } from '../scheduler/events.ts';
import type { Logger } from '../util/log.ts';

export function statsdSubscriber(log: Logger): EventListener {
  // Only runs whose start was sent get a stop (a launch that failed never started a process).
  const started = new Set<string>();
  return (e) => {
    if (e.type === 'run-started') {
      if (e.pid === null || !e.job.statsd) return;
      started.add(e.runId);
      void statsdStart({ ...e.job.statsd, job: e.job.name }, log);
    } else if (e.type === 'run-finished') {
      if (!started.delete(e.run.id) || !e.job.statsd) return;
      void statsdStop(
        { ...e.job.statsd, job: e.job.name },
        {
          success: e.run.outcome === 'success',
          durationMs: Math.round(e.result.durationSeconds * 1000),
        },
        log,
      );
    }
  };
}
