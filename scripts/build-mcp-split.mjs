// The MCP server as its own file beside the bundle, dist/cronstable-mcp.mjs (issue 23): inlined,
// V8 pre-parses its code on every start of every verb and a daemon without `mcp:` keeps ~2 MB
// more resident. Unlike the TUI (a command of its own), the MCP server runs inside the daemon
// and shares modules with it (the store, the web API, logging): two copies would mean two
// states and classes `instanceof` does not recognise across them. So the MCP file carries only
// what the daemon's bundle does not have, and takes every other module from the daemon:
//   1. the bundle is built with src/web/mcp-load.ts stubbed, to learn which files it holds;
//   2. the MCP file is built from src/mcp/index.ts; an import of a file the bundle holds becomes
//      `globalThis[HOST][file]`, the bundle's own module namespace;
//   3. the bundle is built again with mcp-load.ts replaced by a module that fills HOST with
//      exactly those namespaces and then imports ./cronstable-mcp.mjs.
import { dirname, relative, resolve, sep } from 'node:path';
import { build } from 'esbuild';

export const MCP_FILE = 'cronstable-mcp.mjs';
const HOST = 'cronstable.mcp-host';
const LOADER = /src[\\/]web[\\/]mcp-load\.ts$/;
const rel = (path) => relative(process.cwd(), path).split(sep).join('/');

/** Replaces src/web/mcp-load.ts: a stub (host === null) or the host-filling loader. */
function loaderPlugin(host) {
  return {
    name: 'mcp-loader',
    setup(b) {
      b.onResolve({ filter: /^\.\/cronstable-mcp\.mjs$/ }, (args) => ({ path: args.path, external: true }));
      b.onLoad({ filter: LOADER }, (args) => {
        if (host === null)
          return { contents: 'export async function loadMcp() { throw new Error("stub"); }', loader: 'js' };
        const files = [...host].sort();
        const imports = files.map((f, i) => `import * as m${i} from ${JSON.stringify(resolve(f))};`);
        const table = files.map((f, i) => `${JSON.stringify(f)}: m${i}`).join(', ');
        return {
          contents: `${imports.join('\n')}
export async function loadMcp() {
  globalThis[Symbol.for(${JSON.stringify(HOST)})] ??= { ${table} };
  return import('./${MCP_FILE}');
}
`,
          loader: 'js',
          resolveDir: dirname(args.path),
        };
      });
    },
  };
}

/** In the MCP build: imports of files the bundle holds come from HOST (recorded in `used`). */
function sharedPlugin(bundled, used) {
  return {
    name: 'mcp-shared',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.mcpShared || args.kind === 'entry-point' || args.namespace !== 'file')
          return undefined;
        const r = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: { mcpShared: true },
        });
        if (r.errors.length > 0 || r.external || r.namespace !== 'file') return undefined;
        const file = rel(r.path);
        if (!bundled.has(file)) return undefined;
        used.add(file);
        return { path: file, namespace: 'mcp-host' };
      });
      b.onLoad({ filter: /.*/, namespace: 'mcp-host' }, (args) => ({
        contents: `module.exports = globalThis[Symbol.for(${JSON.stringify(HOST)})][${JSON.stringify(args.path)}];`,
        loader: 'js',
      }));
    },
  };
}

/**
 * Builds `main` (esbuild options of the bundle, without plugins) and the MCP file beside it.
 * `plugins` are the bundle's own; `mcpPlugins` the MCP file's (run after the sharing one).
 */
export async function buildWithMcpSplit(main, plugins, mcpPlugins) {
  const probe = await build({
    ...main,
    metafile: true,
    write: false,
    plugins: [loaderPlugin(null), ...plugins],
  });
  const bundled = new Set(Object.keys(probe.metafile.inputs));
  const used = new Set();
  await build({
    ...main,
    metafile: false,
    entryPoints: ['src/mcp/index.ts'],
    outfile: `${dirname(main.outfile)}/${MCP_FILE}`,
    plugins: [sharedPlugin(bundled, used), ...mcpPlugins],
  });
  return build({ ...main, plugins: [loaderPlugin(used), ...plugins] });
}
