// Preloaded into the daemon by bench/workload.ts (`node --import`): once a second, appends the
// worst event-loop delay of that second to $CRONSTABLE_LOOP_PROBE. The program itself is
// unchanged; only the benchmark's process carries this probe. Job processes inherit the
// variable and the flag, so every line names its process and thread for the reader to filter.
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const file = process.env.CRONSTABLE_LOOP_PROBE;
if (file) {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  setInterval(() => {
    const line = { at: Date.now(), pid: process.pid, main: isMainThread, maxMs: h.max / 1e6 };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    h.reset();
  }, 1000).unref();
}
