// The dashboard page served at `GET /`: one self-contained HTML document with the bundled script and stylesheet
// inlined (no other requests, no inline event handlers). scripts/build-ui.mjs bundles src/webui into
// ./generated/assets.ts (APP_JS, APP_CSS); `npm run build` runs it before the daemon bundle.
//
// The import is dynamic and its path a template literal on purpose: esbuild still bundles the generated module
// (and fails loudly if it was never built), while a tree without the build still type-checks and starts under
// tsx/vitest, where dashboardHtml() then says what is missing. It is made on the first request for the page,
// not at start: in the npm bundle the assets (~290 KB) are a file of their own beside dist/cronstable.mjs, which
// a daemon nobody opens the dashboard of never reads or keeps (issue 23).

const GENERATED = 'assets';
type Assets = { APP_JS?: unknown; APP_CSS?: unknown };
let assets: Promise<Assets> | null = null;
const loadAssets = (): Promise<Assets> =>
  (assets ??= (import(`./generated/${GENERATED}.ts`) as Promise<Assets>).catch(() => ({})));

const MISSING = 'dashboard assets are missing (src/web/generated/assets.ts was not built): run npm run build';

/**
 * A static data: favicon, the pendulum mark (spec 10 §5.1): a pivot bar, a rod swung a little off true and its
 * bob. Static on purpose: the live state is in the tab title, and the page never asks for /favicon.ico.
 */
const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E" +
  "%3Cpath d='M9 3h14' stroke='%234f9ee8' stroke-width='3' stroke-linecap='round'/%3E" +
  "%3Cpath d='M16 3l5 17' stroke='%234f9ee8' stroke-width='2.5' stroke-linecap='round'/%3E" +
  "%3Ccircle cx='22' cy='24' r='6' fill='%234f9ee8'/%3E%3C/svg%3E";

let cached: string | null = null;

/** Keeps `</script` / `</style` and `<!--` inside inlined code from ending or confusing the HTML element. */
function inlineSafe(code: string, tag: 'script' | 'style'): string {
  const close = new RegExp(`</(${tag})`, 'gi');
  return code.replace(close, '<\\/$1').replace(/<!--/g, '<\\!--');
}

async function assetsOrThrow(): Promise<{ js: string; css: string }> {
  const { APP_JS: js, APP_CSS: css } = await loadAssets();
  if (typeof js !== 'string' || typeof css !== 'string' || js.length === 0) throw new Error(MISSING);
  return { js, css };
}

/** The complete dashboard HTML (built once per process). Rejects with "run npm run build" when the assets are absent. */
export async function dashboardHtml(): Promise<string> {
  if (cached !== null) return cached;
  const { js, css } = await assetsOrThrow();
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
