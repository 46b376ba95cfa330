// Under Bun, a periodic full collection while the daemon runs, on the main thread and in each store
// lane worker (each worker is a JavaScriptCore VM of its own). An idle daemon's own garbage (timers,
// fires, polls, the lane's statements) otherwise sits in the heap: 10-11 MB held where a collection
// leaves 7-8, and RSS with it. Node's young generation does this itself, so Node is left alone.
//
// In the standalone binary the step is Bun.shrink(): the collection plus dropping the compiled code
// of the functions not running. Their bytecode is embedded in the executable (bun build --bytecode),
// so a function called again is loaded back from the mapped file instead of kept in the heap: on a
// grand-tour node the main thread's live heap 7.3 -> 5.1 MB and the lane's 2.7 -> 1.6 MB, for
// ~0.1% of a core. Run from sources (`bun x.mjs`), dropped code would have to be parsed again, so
// there the step stays a plain collection.
// Measured in bench/RESULTS.md, "Binary memory (issue 34 item 4)", 2026-12-05 (night).

/** A step every this many ms. */
export const IDLE_COLLECT_MS = 5_000;

interface BunGc {
  gc(sync: boolean): void;
  shrink?: () => void;
  /** `/$bunfs/...` when the program runs from a compiled executable. */
  main?: string;
}

const bun = (globalThis as { Bun?: BunGc }).Bun;
/** Whether the code runs from the executable's embedded bytecode (Bun's compiled binary). */
const fromBytecode = bun?.main?.startsWith('/$bunfs/') === true && typeof bun.shrink === 'function';
const idle = { runs: 0, spentMs: 0 };

/** The step: a full collection, and in the binary the idle code dropped with it. */
function step(b: BunGc): void {
  if (fromBytecode) b.shrink!();
  else b.gc(true);
}

/** Starts the periodic steps under Bun (nothing on Node); returns the stop. Never keeps a thread up. */
export function startIdleCollections(): () => void {
  if (bun === undefined) return () => {};
  const timer = setInterval(() => {
    const t0 = performance.now();
    step(bun);
    idle.runs++;
    idle.spentMs += performance.now() - t0;
  }, IDLE_COLLECT_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** This thread's steps so far and their milliseconds (null on Node): for the memory report. */
export function idleCollections(): { runs: number; spentMs: number; shrinks: boolean } | null {
  return bun === undefined
    ? null
    : { runs: idle.runs, spentMs: Math.round(idle.spentMs), shrinks: fromBytecode };
}
