// Bundles src/main.ts into dist/cronstable.mjs: one ESM file that runs on Node 20+ and Deno, and
// that `bun build --compile` turns into the standalone binary.
//
// Start-up cost is what every `cronstable` call pays, job verbs included, so evaluation is lazy:
// - src/main.ts reaches each command through a dynamic import(), which esbuild turns into a
//   module evaluated on first use (`__esm`), so a verb evaluates only the code it needs;
// - a static `import ... from 'node:http'` would become a top-level import of the bundle, loading
//   every builtin the whole program uses (http2, zlib, worker_threads, ...) on each start; the
//   plugin below turns them into require() calls made when the importing module is first
//   evaluated.
// - each of those dynamic imports is also a file of its own beside the entry (esbuild's code
//   splitting, see SPLIT below), so a command reads, parses and keeps only the code it runs.
// What a command still pays is V8 compiling the files it loads (lazy functions are pre-parsed,
// not skipped): about 1 ms per 45 KB here. `CRONSTABLE_BUILD_ANALYZE=1` prints what the bytes are.
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { analyzeMetafile, build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const OUT = process.env.CRONSTABLE_BUILD_OUT ?? 'dist/cronstable.mjs';

const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/**
 * Dependencies only some commands use (reports, templates, metrics, the iCal feed) are left in
 * node_modules and required when the importing module is first evaluated: V8 pre-parses every
 * byte of the bundle on each start, and these are ~0.4 MB a job verb never runs. (They are
 * CommonJS packages, so a lazy require() gives the same module a static import would.) The
 * standalone binary is compiled from a split with every dependency inlined (INLINE_ALL).
 */
const INLINE_ALL = process.env.CRONSTABLE_BUILD_INLINE_ALL === '1';
// zod (~0.36 MB) serves the OpenAPI document's schemas (the MCP server serves generated JSON
// Schemas), never a CLI verb's start-up.
const LAZY_PACKAGES = INLINE_ALL ? [] : ['nunjucks', 'prom-client', 'ical-generator', 'zod'];
const LAZY = new Set([...BUILTINS, ...LAZY_PACKAGES]);
/** Packages reached through subpaths, lazy the same way. */
const LAZY_PREFIXES = INLINE_ALL ? [] : ['prom-client/'];
/**
 * CommonJS packages the code reaches through import() that are required all the same: Node's ES
 * module loader runs the CommonJS export scanner (cjs-module-lexer, WebAssembly) on an imported
 * CommonJS file, and V8's optimising compile of that module frees a 2 MB block, after which glibc
 * keeps up to 4 MB free in every thread's malloc arena (see SPLIT below). nodemailer is loaded
 * when the first mail is sent (src/report/mail.ts).
 */
const REQUIRED_ON_IMPORT = new Set(INLINE_ALL ? [] : ['nodemailer']);
const isLazy = (path) =>
  LAZY.has(path) || REQUIRED_ON_IMPORT.has(path) || LAZY_PREFIXES.some((p) => path.startsWith(p));

/** Static imports of Node builtins (and LAZY_PACKAGES) become lazily evaluated requires. */
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-zA-Z0-9_/@.-]+$/ }, (args) => {
      if (!isLazy(args.path)) return undefined;
      const required =
        args.kind === 'import-statement' ||
        (args.kind === 'dynamic-import' && REQUIRED_ON_IMPORT.has(args.path));
      if (args.namespace === 'lazy-builtin' || !required) return { path: args.path, external: true };
      return { path: args.path, namespace: 'lazy-builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * Ink reaches react-devtools-core only when DEV=true is set (a dynamic import inside a try); the package is an
 * optional peer we do not ship, so the import resolves to a module that throws, which Ink reports.
 */
const noDevtools = {
  name: 'no-react-devtools',
  setup(b) {
    b.onResolve({ filter: /^react-devtools-core$/ }, () => ({
      path: 'react-devtools-core',
      namespace: 'no-devtools',
    }));
    b.onLoad({ filter: /.*/, namespace: 'no-devtools' }, () => ({
      contents: "throw new Error('react-devtools-core is not bundled');",
      loader: 'js',
    }));
  },
};

/**
 * The terminal dashboard (Ink + React, ~0.5 MB) is its own file beside the bundle, dist/cronstable-tui.mjs:
 * inlined, V8 would pre-parse it on every start of every verb (+40 ms on `--version` measured). `tui` imports
 * it after its flag and tty checks. In the binary's input it is one more file of the split.
 */
const TUI_FILE = 'cronstable-tui.mjs';
const tuiSplit = {
  name: 'tui-split',
  setup(b) {
    b.onResolve({ filter: /^\.\/app\/run\.tsx$/ }, (args) =>
      /src[\\/]tui[\\/]cli\.ts$/.test(args.importer) ? { path: `./${TUI_FILE}`, external: true } : undefined,
    );
  },
};

const LANE_FILE = 'cronstable-lane.mjs';

/** The spawner's Perl program, inlined as a string (src/exec/spawner-script.ts reads it from the source tree). */
const SPAWNER_PL = readFileSync(new URL('../src/exec/spawner.pl', import.meta.url), 'utf8');

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  metafile: Boolean(process.env.CRONSTABLE_BUILD_ANALYZE),
  // NODE_ENV: React and Ink (the `tui` verb only) pick their production builds; nothing else reads it.
  define: {
    __CRONSTABLE_VERSION__: JSON.stringify(pkg.version),
    __SPAWNER_PL__: JSON.stringify(SPAWNER_PL),
    'process.env.NODE_ENV': '"production"',
  },
  // Native drivers stay outside the bundle; the runtime picks one (src/store/driver.ts).
  // nodemailer (REQUIRED_ON_IMPORT) stays in node_modules for the same reason as LAZY_PACKAGES.
  external: ['better-sqlite3', 'bun:sqlite', 'node:sqlite'],
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __cronstableCreateRequire } from 'node:module';\nconst require = __cronstableCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
};

/**
 * SPLIT: the npm bundle is dist/cronstable.mjs (the entry: argv dispatch, ~2 KB) and, beside it,
 * one file per dynamic import (`cronstable-<module>-<hash>.mjs`: the daemon, each verb, the MCP
 * server, the dashboard's assets) plus the modules they share (`cronstable-chunk-<hash>.mjs`),
 * each module once: one state, and `instanceof` works across files. Two reasons (issue 23):
 * - a daemon never reads, parses or keeps the source of code it does not run (the verbs, the MCP
 *   server, the dashboard's 290 KB of assets until someone asks for the page);
 * - no file it loads at start is large. Node reads a module into one malloc'd buffer; glibc serves
 *   one over 128 KB with mmap and, when it is freed, raises its mmap threshold to that size and
 *   its trim threshold to twice that, for good. After the 1 MB single-file bundle, every thread's
 *   malloc arena (V8's platform threads, libuv's, the store worker) kept up to 2 MB of freed
 *   memory: ~7 MB of the tour node's steady RSS (bench/RESULTS.md, "serve (issue 23)").
 * The files keep flat names beside the entry: the lane, TUI and package.json paths stay relative
 * to whichever file holds the code. The binary's input (INLINE_ALL, dist/binary/) is split the
 * same way, with the dependencies inlined and the lane entry beside the program's.
 */
const OUT_DIR = dirname(OUT);
const CHUNK = /^cronstable-.+-[A-Z0-9]{8}\.mjs$/;
const main = {
  ...common,
  // The binary's input is split the same way (bun build --compile --splitting keeps each file a
  // module of its own, loaded on first import), with the lane entry beside the program entry:
  // a store lane's isolate loads only the store, and a daemon never loads the TUI, the MCP
  // server or the verbs it does not run (bench/RESULTS.md, "Binary memory (issue 34 item 4)").
  entryPoints: {
    [basename(OUT, '.mjs')]: 'src/main.ts',
    ...(INLINE_ALL ? { [basename(LANE_FILE, '.mjs')]: 'src/store/lane-entry.ts' } : {}),
  },
  outdir: OUT_DIR,
  splitting: true,
  chunkNames: 'cronstable-[name]-[hash]',
  outExtension: { '.js': '.mjs' },
};
if (existsSync(OUT_DIR)) {
  // A previous build's files (hashes change with the code; cronstable-mcp.mjs is the old MCP file).
  for (const f of readdirSync(OUT_DIR, { withFileTypes: true }))
    if (f.isFile() && (CHUNK.test(f.name) || f.name === 'cronstable-mcp.mjs')) rmSync(join(OUT_DIR, f.name));
}
const result = await build({
  ...main,
  // Bundled for the binary, the TUI is one more file of the split (no separate build).
  plugins: INLINE_ALL ? [lazyBuiltins, noDevtools] : [lazyBuiltins, noDevtools, tuiSplit],
});
if (!INLINE_ALL) {
  await build({
    ...common,
    entryPoints: ['src/tui/app/run.tsx'],
    outfile: join(dirname(OUT), TUI_FILE),
    plugins: [lazyBuiltins, noDevtools],
  });
}
if (!INLINE_ALL) {
  // The store lanes' worker threads (src/store/lanes.ts) start on this file, not on the whole
  // program: each lane is its own isolate, and compiling and keeping the 1 MB bundle there cost
  // ~5 MB of heap per lane for code it never runs. The binary carries its own lane entry (above).
  await build({
    ...common,
    entryPoints: ['src/store/lane-entry.ts'],
    outfile: join(dirname(OUT), LANE_FILE),
    plugins: [lazyBuiltins],
  });
}
if (result.metafile) process.stderr.write(await analyzeMetafile(result.metafile));

// esbuild writes the file without the executable bit.
chmodSync(OUT, 0o755);
