// V8 settings the daemon gives itself at start (issue 23), never left to a user's flags. A
// long-running daemon answers bursts of requests that allocate short-lived strings (metrics
// text, the calendar, JSON): V8 lets the young generation grow to 16 MB per semi-space for
// them and keeps it, resident memory of the whole process (+30 MB measured after a sweep of
// the read endpoints). A small young generation costs a few more scavenges, each well under a
// millisecond at this size.
//
// The main isolate's limits were fixed when it was created, before any of our code ran; what
// V8 reads afresh at each growth is the growth factor, so 1 keeps the young generation at its
// initial size. V8 resets that factor to its minimum of 2 whenever it configures a new isolate
// (a worker thread), so it is set again once each worker is online. Isolates created later
// (the store lanes) also take the semi-space cap at creation.
import { setFlagsFromString } from 'node:v8';

/** Semi-space cap of later isolates, MB. */
export const SEMI_SPACE_MB = 2;
/** Set to 1 to measure the daemon with V8's defaults. */
export const V8_DEFAULTS_ENV = 'CRONSTABLE_DEBUG_V8_DEFAULTS';
/** Extra V8 flags to try (measurement only, space separated), set after ours. */
export const V8_TRY_ENV = 'CRONSTABLE_DEBUG_V8_FLAGS';

const keepYoungSmall = () => setFlagsFromString('--semi-space-growth-factor=1');

/**
 * Call once, early; Bun (not V8) and the debug variable leave V8's defaults.
 *
 * WebAssembly compiles with the baseline tier (Liftoff) only. What a daemon or the TUI runs as wasm
 * is library code (undici's HTTP parser, behind fetch(): the webhook and Sentry reporters; Ink's yoga
 * layout in the TUI) that the baseline tier runs fast enough, and V8's optimising tier compiles it in a
 * background thread in zones of 1-2 MB (~25 MB of peak for yoga). Worse, freeing such a block raises
 * glibc's trim threshold to twice its size for the rest of the process, so every thread's malloc
 * arena keeps up to 4 MB it no longer uses (measured on the tour node: bench/RESULTS.md, issue 23).
 */
export function tuneHeap(env: NodeJS.ProcessEnv = process.env): boolean {
  if ('bun' in process.versions || env[V8_DEFAULTS_ENV] === '1') return false;
  try {
    keepYoungSmall();
    setFlagsFromString(`--max-semi-space-size=${SEMI_SPACE_MB}`);
    setFlagsFromString('--liftoff-only');
    for (const flag of (env[V8_TRY_ENV] ?? '').split(/\s+/).filter(Boolean)) setFlagsFromString(flag);
  } catch {
    return false;
  }
  process.on('worker', (worker) => worker.once('online', keepYoungSmall));
  return true;
}
