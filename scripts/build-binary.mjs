// `npm run build:binary`: the standalone Bun binary. It is compiled from the program split as the
// npm bundle is, but with every dependency inlined (the npm bundle leaves a few to node_modules,
// see build.mjs), so the binary needs nothing beside it. Usage: node scripts/build-binary.mjs [OUTFILE]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
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
// Bytecode: Bun then skips parsing at start. --splitting keeps each file of the split a module of
// its own in the binary, loaded on first import; the lane entry is the store workers' own entry.
step(runtimeBin('bun'), [
  'build',
  '--compile',
  '--bytecode',
  '--splitting',
  '--format=esm',
  entry,
  laneEntry,
  '--outfile',
  outfile,
]);
