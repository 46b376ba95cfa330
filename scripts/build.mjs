// Bundles src/main.ts into one ESM file that runs on Node 20+, Bun and Deno.
import { chmodSync, readFileSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

await build({
  entryPoints: ['src/main.ts'],
  outfile: 'dist/cronstable.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minifySyntax: true,
  legalComments: 'none',
  define: { __CRONSTABLE_VERSION__: JSON.stringify(pkg.version) },
  // Native drivers stay outside the bundle; the runtime picks one (src/store/driver.ts).
  external: ['better-sqlite3', 'bun:sqlite', 'node:sqlite'],
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __cronstableCreateRequire } from 'node:module';\nconst require = __cronstableCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
chmodSync('dist/cronstable.mjs', 0o755);
