// Jinja2-compatible report templates on nunjucks (reporting spec §9.3).
//
// nunjucks speaks the Jinja dialect; what differs is patched here without touching the
// library globally:
// - printing goes through a per-template runtime whose `suppressValue` prints Python-style
//   (`None`, `True`/`False`, ints, float repr, list/dict repr) while values keep their JS
//   type, so truthiness in `{% if %}` is unchanged;
// - name and attribute lookups only see own properties (no `constructor` & co. leaking
//   from Object.prototype); a missing one is `undefined`, which prints "" and is falsy;
// - `True`/`False`/`None` exist as names (nunjucks only knows `true`/`false`/`none`);
// - `tojson` is Jinja's (sorted keys, ASCII-only, HTML-safe escapes);
// - newlines are normalised to `\n` and exactly one trailing `\n` of the source is removed
//   (Jinja's `keep_trailing_newline=False`).
import nunjucks from 'nunjucks';
import { errorText } from '../util/errors.ts';
import { pyStr, toJson } from './pyfmt.ts';
import { runContext } from './run-context.ts';
import { slaVars } from './sla-vars.ts';
import type { ReportContext } from './types.ts';

/** A template failed to compile or render: a reporter error (spec §9.3). */
export class TemplateError extends Error {
  override name = 'TemplateError';
}

type RenderFn = (env: unknown, context: unknown, frame: unknown, runtime: unknown, cb: unknown) => void;

interface NunjucksContext {
  ctx: Record<string, unknown>;
  env: { globals: Record<string, unknown> };
}
interface NunjucksFrame {
  lookup(name: string): unknown;
}

const baseRuntime = (nunjucks as unknown as { runtime: Record<string, unknown> }).runtime;

function memberLookup(obj: unknown, key: unknown): unknown {
  if (obj === undefined || obj === null) return undefined;
  if (typeof obj === 'string') {
    return typeof key === 'number' ? obj[key < 0 ? obj.length + key : key] : undefined;
  }
  if (typeof obj !== 'object' && typeof obj !== 'function') return undefined;
  const target = obj as Record<string | number, unknown>;
  const k = key as string | number;
  if (Array.isArray(obj) && typeof key === 'number') return obj[key < 0 ? obj.length + key : key];
  if (Object.hasOwn(target, k)) return target[k];
  return undefined;
}

function contextOrFrameLookup(context: NunjucksContext, frame: NunjucksFrame, name: string): unknown {
  const local = frame.lookup(name);
  if (local !== undefined) return local;
  if (Object.hasOwn(context.ctx, name)) return context.ctx[name];
  const globals = context.env.globals;
  return Object.hasOwn(globals, name) ? globals[name] : undefined;
}

const pyRuntime = {
  ...baseRuntime,
  suppressValue: (value: unknown) => pyStr(value),
  memberLookup,
  contextOrFrameLookup,
};

const env = new nunjucks.Environment([], {
  autoescape: false,
  throwOnUndefined: false,
  trimBlocks: false,
  lstripBlocks: false,
});
env.addGlobal('True', true);
env.addGlobal('False', false);
env.addGlobal('None', null);
env.addFilter('tojson', (value: unknown, indent?: number | string | null) => toJson(value, indent));

const cache = new Map<string, nunjucks.Template>();

function oneLine(err: unknown): string {
  const text = errorText(err);
  return text
    .replace(/^\(unknown path\)\s*/, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/** Jinja's source preparation: newlines normalised, one trailing `\n` dropped. */
export function prepareSource(source: string): string {
  const normalised = source.replace(/\r\n?/g, '\n');
  return normalised.endsWith('\n') ? normalised.slice(0, -1) : normalised;
}

/** Compiles a template once per process (spec §9.3 compile cache). */
export function compileTemplate(source: string): nunjucks.Template {
  const hit = cache.get(source);
  if (hit) return hit;
  let tmpl: nunjucks.Template;
  try {
    tmpl = new nunjucks.Template(prepareSource(source), env, undefined, true);
  } catch (err) {
    throw new TemplateError(`template syntax error: ${oneLine(err)}`);
  }
  const holder = tmpl as unknown as { rootRenderFunc: RenderFn };
  const root = holder.rootRenderFunc;
  holder.rootRenderFunc = (e, c, f, _runtime, cb) => root(e, c, f, pyRuntime, cb);
  cache.set(source, tmpl);
  return tmpl;
}

/** Renders `source` with `vars` under the Jinja rules of spec §9.3. Throws TemplateError. */
export function renderTemplate(source: string, vars: Record<string, unknown>): string {
  const tmpl = compileTemplate(source);
  try {
    return tmpl.render(vars);
  } catch (err) {
    throw new TemplateError(`template error: ${oneLine(err)}`);
  }
}

/** The template variables of spec §9.4 for one run. */
export function templateVars(ctx: ReportContext): Record<string, unknown> {
  return {
    name: ctx.name,
    success: ctx.success,
    fail_reason: ctx.fail_reason,
    stdout: ctx.stdout,
    stderr: ctx.stderr,
    exit_code: ctx.exit_code,
    command: ctx.command,
    shell: ctx.shell,
    environment: ctx.environment,
    cpu_seconds: ctx.cpu_seconds,
    cpu_user_seconds: ctx.cpu_user_seconds,
    cpu_system_seconds: ctx.cpu_system_seconds,
    max_rss_bytes: ctx.max_rss_bytes,
    ...runContext(ctx),
    ...slaVars(ctx),
    ...ctx.extra,
  };
}

/** Number of compiled templates held (tests). */
export function templateCacheSize(): number {
  return cache.size;
}
