// The dashboard page served at `GET /`: one self-contained HTML document with the bundled script and stylesheet
// inlined (no other requests, no inline event handlers). scripts/build-ui.mjs bundles src/web/ui into
// ./generated/assets.ts (APP_JS, APP_CSS); `npm run build` runs it before the daemon bundle.
//
// The import is dynamic and its path a template literal on purpose: esbuild still inlines the generated module
// into dist/cronstable.mjs (and fails loudly if it was never built), while a tree without the build still
// type-checks and starts under tsx/vitest, where dashboardHtml() then says what is missing.

const GENERATED = 'assets';
let assets: { APP_JS?: unknown; APP_CSS?: unknown } = {};
try {
  assets = (await import(`./generated/${GENERATED}.ts`)) as typeof assets;
} catch {
  assets = {};
}

const MISSING =
  'dashboard assets are missing (src/web/ui/generated/assets.ts was not built): run npm run build';

/** A data: favicon (a clock face), so the page never asks for /favicon.ico. */
const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Ccircle cx='16' cy='16' r='13' fill='none' stroke='%234f9ee8' stroke-width='3'/%3E%3Cpath d='M16 9v8l5 3' fill='none' stroke='%234f9ee8' stroke-width='3' stroke-linecap='round'/%3E%3C/svg%3E";

let cached: string | null = null;

/** Keeps `</script` / `</style` and `<!--` inside inlined code from ending or confusing the HTML element. */
function inlineSafe(code: string, tag: 'script' | 'style'): string {
  const close = new RegExp(`</(${tag})`, 'gi');
  return code.replace(close, '<\\/$1').replace(/<!--/g, '<\\!--');
}

function assetsOrThrow(): { js: string; css: string } {
  const js = assets.APP_JS;
  const css = assets.APP_CSS;
  if (typeof js !== 'string' || typeof css !== 'string' || js.length === 0) throw new Error(MISSING);
  return { js, css };
}

/** The complete dashboard HTML (built once per process). Throws "run npm run build" when the assets are absent. */
export function dashboardHtml(): string {
  if (cached !== null) return cached;
  const { js, css } = assetsOrThrow();
  cached =
    '<!doctype html>\n' +
    '<html lang="en" data-theme="dark">\n<head>\n' +
    '<meta charset="utf-8">\n' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    '<meta name="color-scheme" content="dark light">\n' +
    '<meta name="referrer" content="no-referrer">\n' +
    '<title>cronstable</title>\n' +
    `<link rel="icon" href="${FAVICON}">\n` +
    `<style>${inlineSafe(css, 'style')}</style>\n` +
    `<script>${inlineSafe(js, 'script')}</script>\n` +
    '</head>\n<body>\n' +
    '<div id="app"><noscript>The cronstable dashboard needs JavaScript. The JSON API is at /jobs and /status.</noscript></div>\n' +
    '</body>\n</html>\n';
  return cached;
}
