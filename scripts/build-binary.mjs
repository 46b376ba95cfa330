// `npm run build:binary`: the standalone Bun binary. It is compiled from a bundle with every
// dependency inlined (the npm bundle leaves a few to node_modules, see build.mjs), so the binary
// needs nothing beside it. Usage: node scripts/build-binary.mjs [OUTFILE]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runtimeBin } from './runtimes.mjs';

const root = join(import.meta.dirname, '..');
const outfile = process.argv[2] ?? join(root, 'dist', 'cronstable');
const full = join(root, 'dist', 'cronstable.full.mjs');

function step(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

step(process.execPath, ['scripts/build.mjs'], {
  CRONSTABLE_BUILD_INLINE_ALL: '1',
  CRONSTABLE_BUILD_OUT: full,
});
// Bytecode: Bun then skips parsing at start.
step(runtimeBin('bun'), ['build', '--compile', '--bytecode', '--format=esm', full, '--outfile', outfile]);
