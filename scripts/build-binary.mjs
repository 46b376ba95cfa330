// `npm run build:binary`: the standalone Bun binary. It is compiled from the program split as the
// npm bundle is, but with every dependency inlined (the npm bundle leaves a few to node_modules,
// see build.mjs), so the binary needs nothing beside it. Usage: node scripts/build-binary.mjs [OUTFILE]
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { recordBytecodeOrder } from './binary-order.mjs';
import { runtimeBin } from './runtimes.mjs';

const root = join(import.meta.dirname, '..');
const outfile = process.argv[2] ?? join(root, 'dist', 'cronstable');
// The binary's input: the program split into files (scripts/build.mjs), every dependency inlined.
const stage = join(root, 'dist', 'binary');
const entry = join(stage, 'cronstable.mjs');
const laneEntry = join(stage, 'cronstable-lane.mjs');

function step(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

step(process.execPath, ['scripts/build.mjs'], {
  CRONSTABLE_BUILD_INLINE_ALL: '1',
  CRONSTABLE_BUILD_OUT: entry,
});
/**
 * JavaScriptCore's tier-up thresholds, times this (Bun's --compile-jit-policy). A daemon is idle
 * most of the time and a CLI verb runs its code once: at the normal policy the JITs compile code
 * that has run a few hundred times (timers, the endpoints' loops), and what they allocate and the
 * code they emit stayed resident: 10-20 MB of the tour node's steady RSS and ~20 MB of its peak,
 * with no endpoint answering slower for it (bench/RESULTS.md, "Binary memory (issue 34 item 4)").
 */
const JIT_POLICY = 1000;

// Bytecode: Bun then skips parsing at start. --splitting keeps each file of the split a module of
// its own in the binary, loaded on first import; the lane entry is the store workers' own entry.
const compile = (order, out) =>
  step(runtimeBin('bun'), [
    'build',
    '--compile',
    '--bytecode',
    `--compile-jit-policy=${JIT_POLICY}`,
    '--splitting',
    '--format=esm',
    ...(order ? [`--bytecode-order=${order.join(',')}`] : []),
    entry,
    laneEntry,
    '--outfile',
    out,
  ]);

// Twice: a first binary runs a small job set to record which functions a daemon uses, and the
// second lays that bytecode out together at the front (scripts/binary-order.mjs says why). The
// first is written beside the stage, not at OUTFILE: what stands at OUTFILE is only ever finished.
const trainer = join(stage, 'cronstable-training');
compile(null, trainer);
const order = await recordBytecodeOrder(trainer, stage);
rmSync(trainer, { force: true });
compile(order, outfile);
