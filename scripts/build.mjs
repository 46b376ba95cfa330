// Bundles src/main.ts into dist/cronstable.mjs: one ESM file that runs on Node 20+ and Deno,
// plus dist/cronstable.full.mjs, the same program unwrapped, which `bun build --compile` turns
// into the standalone binary.
//
// Why the wrapper: V8 has to scan the whole ~1 MB bundle before running any of it, which alone
// costs more than the `cronstable --version` budget (1.6x a bare `node -e 0`). The wrapper is a
// few lines that answer --version themselves and otherwise import the program from a base64
// data: URL: scanning one string literal is an order of magnitude cheaper than compiling code.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const result = await build({
  entryPoints: ['src/main.ts'],
  bundle: true,
  write: false,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  define: { __CRONSTABLE_VERSION__: JSON.stringify(pkg.version) },
  // Native drivers stay outside the bundle; the runtime picks one (src/store/driver.ts).
  external: ['better-sqlite3', 'bun:sqlite', 'node:sqlite'],
  banner: {
    js: "import { createRequire as __cronstableCreateRequire } from 'node:module';\nconst require = __cronstableCreateRequire(globalThis.__cronstableEntry ?? import.meta.url);",
  },
  logLevel: 'warning',
});
const program = result.outputFiles[0].text;

mkdirSync('dist', { recursive: true });
writeFileSync('dist/cronstable.full.mjs', `#!/usr/bin/env node\n${program}`);
chmodSync('dist/cronstable.full.mjs', 0o755);

// Inside the data: module import.meta.url is the data URL; the program sees the real file instead.
const relocated = program.replaceAll('import.meta.url', '(globalThis.__cronstableEntry ?? import.meta.url)');
const wrapper = `#!/usr/bin/env node
// cronstable ${pkg.version}. The program is embedded below; see scripts/build.mjs for why.
if (process.argv[2] === '--version') process.stdout.write(${JSON.stringify(`cronstable ${pkg.version}\n`)});
else {
  globalThis.__cronstableEntry = import.meta.url;
  await import('data:text/javascript;base64,' + ${JSON.stringify(Buffer.from(relocated).toString('base64'))});
}
`;
writeFileSync('dist/cronstable.mjs', wrapper);
chmodSync('dist/cronstable.mjs', 0o755);
