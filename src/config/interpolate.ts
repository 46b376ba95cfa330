// Environment-variable interpolation in YAML config values (spec 09 §1): `$$`, `${NAME}` and
// `${NAME:-DEFAULT}` expand in text values of a validated file, in one left-to-right pass.
// Positions that a shell expands at run time (`command`, `shell`, shell reporters) and the
// `logging` section keep every `$`.
import type { ConfigIssue } from './errors.ts';
import { keyPos } from './validators.ts';

export type Env = Readonly<Record<string, string | undefined>>;

export type Expansion = { text: string; unset: string[] };

function isNameStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57);
}

/**
 * Expands one string. Linear in its length: the position of the next `}` is found once and
 * reused while the scan stays before it, so a run of `${x:-` never rescans the tail.
 */
export function expandText(s: string, env: Env): Expansion {
  const unset: string[] = [];
  if (!s.includes('$')) return { text: s, unset };
  let out = '';
  let i = 0;
  let nextClose = -2; // -2: not searched yet; -1: no `}` at or after the last search
  let closeFrom = 0;
  const closeAt = (from: number): number => {
    if (nextClose === -1 && from >= closeFrom) return -1;
    if (nextClose >= from) return nextClose;
    closeFrom = from;
    nextClose = s.indexOf('}', from);
    return nextClose;
  };
  while (i < s.length) {
    const dollar = s.indexOf('$', i);
    if (dollar === -1) {
      out += s.slice(i);
      break;
    }
    out += s.slice(i, dollar);
    const next = s.charCodeAt(dollar + 1);
    if (next === 36 /* $ */) {
      out += '$';
      i = dollar + 2;
      continue;
    }
    if (next !== 123 /* { */ || !isNameStart(s.charCodeAt(dollar + 2))) {
      out += '$';
      i = dollar + 1;
      continue;
    }
    let end = dollar + 3;
    while (end < s.length && isNameChar(s.charCodeAt(end))) end++;
    const name = s.slice(dollar + 2, end);
    const value = env[name];
    if (s.charCodeAt(end) === 125 /* } */) {
      if (value === undefined) unset.push(name);
      else out += value;
      i = end + 1;
      continue;
    }
    if (s.startsWith(':-', end)) {
      const close = closeAt(end + 2);
      if (close !== -1) {
        out += value ? value : s.slice(end + 2, close);
        i = close + 1;
        continue;
      }
    }
    out += '$';
    i = dollar + 1;
  }
  return { text: out, unset };
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Walks a validated file in document order and expands its text values in place. */
class Interpolator {
  readonly issues: ConfigIssue[] = [];
  constructor(
    private readonly env: Env,
    private readonly label: string,
  ) {}

  /** Expands `holder[key]` when it is text, recursing into maps and lists; `skip` names keys kept verbatim. */
  visit(holder: Obj | unknown[], key: string, path: string, skip?: (k: string) => boolean): void {
    const v = (holder as Obj)[key];
    if (typeof v === 'string') {
      const { text, unset } = expandText(v, this.env);
      (holder as Obj)[key] = text;
      for (const name of unset) this.unsetIssue(holder, key, path, name);
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) this.visit(v, String(i), `${path}[${i}]`);
    } else if (isObj(v)) {
      for (const k of Object.keys(v)) if (!skip?.(k)) this.visit(v, k, `${path}.${k}`);
    }
  }

  unsetIssue(holder: object, key: string, path: string, name: string): void {
    const pos = keyPos(holder, key);
    this.issues.push({
      file: pos?.file ?? this.label,
      line: pos?.line,
      col: pos?.col,
      message: `config value ${path} references environment variable \${${name}}, which is not set; export it, or write \${${name}:-default} to supply a fallback`,
    });
  }

  /** A job, `defaults:` or DAG task: its own `command`/`shell` and every reporter's shell block stay verbatim. */
  runnable(holder: Obj | unknown[], key: string, path: string): void {
    const v = (holder as Obj)[key];
    if (!isObj(v)) {
      this.visit(holder, key, path);
      return;
    }
    for (const k of Object.keys(v)) {
      if (k === 'command' || k === 'shell') continue;
      if (HOOKS.has(k)) this.hook(v, k, `${path}.${k}`);
      else this.visit(v, k, `${path}.${k}`);
    }
  }

  /** `onFailure`, `onSuccess`, `onLate`, ...: everything but `report.shell`. */
  hook(holder: Obj, key: string, path: string): void {
    const v = holder[key];
    if (!isObj(v)) {
      this.visit(holder, key, path);
      return;
    }
    for (const k of Object.keys(v)) {
      if (k === 'report') this.visit(v, k, `${path}.${k}`, (r) => r === 'shell');
      else this.visit(v, k, `${path}.${k}`);
    }
  }

  file(root: Obj): void {
    for (const k of Object.keys(root)) {
      const v = root[k];
      if (k === 'logging') continue;
      if (k === 'jobs' && Array.isArray(v))
        for (let i = 0; i < v.length; i++) this.runnable(v, String(i), `jobs[${i}]`);
      else if (k === 'defaults') this.runnable(root, k, k);
      else if (k === 'dags' && Array.isArray(v))
        v.forEach((_, i) => {
          this.dag(v, i);
        });
      else if (k === 'notify') this.hook(root, k, k);
      else this.visit(root, k, k);
    }
  }

  dag(dags: unknown[], i: number): void {
    const dag = dags[i];
    if (!isObj(dag)) {
      this.visit(dags, String(i), `dags[${i}]`);
      return;
    }
    for (const k of Object.keys(dag)) {
      const v = dag[k];
      if (k === 'tasks' && Array.isArray(v))
        for (let t = 0; t < v.length; t++) this.runnable(v, String(t), `dags[${i}].tasks[${t}]`);
      else this.visit(dag, k, `dags[${i}].${k}`);
    }
  }
}

const HOOKS = new Set(['onFailure', 'onSuccess', 'onPermanentFailure', 'onLate']);

/**
 * Expands the text values of one validated YAML file (spec 09 §1.2) in place and returns one
 * issue per unset `${NAME}` reference, each at its value's position.
 */
export function interpolateFile(root: unknown, env: Env, label: string): ConfigIssue[] {
  if (!isObj(root)) return [];
  const walker = new Interpolator(env, label);
  walker.file(root);
  return walker.issues;
}
