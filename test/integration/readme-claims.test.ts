// The README and the examples' READMEs against the tree: every path they name exists, every npm
// script and bench group they run is defined, every API route they name is served, every config
// key they name is in the schema, every YAML block they show loads, every metric they name exists
// with the labels they give it, and every flag they pass to a verb is in that verb's --help.
// A claim that drifts from the code fails here instead of misleading a newcomer.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERBS } from '../../src/cli/verbs.ts';
import { ConfigError } from '../../src/config/errors.ts';
import { loadConfig } from '../../src/config/load.ts';
import { openDatabase } from '../../src/store/driver.ts';
import { migrate } from '../../src/store/migrate.ts';
import { isLeaseBackendKind, LEASE_BACKENDS } from '../../src/util/backend-kinds.ts';
import { ROUTE_DOCS } from '../../src/web/openapi.ts';
import { writeTree } from '../helpers/tmp.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');

const DOCS: { rel: string; dir: string; text: string }[] = [
  { rel: 'README.md', dir: '', text: read('README.md') },
  ...readdirSync(join(ROOT, 'example'))
    .filter((d) => existsSync(join(ROOT, 'example', d, 'README.md')))
    .map((d) => ({
      rel: `example/${d}/README.md`,
      dir: `example/${d}`,
      text: read(`example/${d}/README.md`),
    })),
];

/** Inline code spans and the lines of fenced blocks, each with the document it came from. */
function snippets(text: string): string[] {
  const fenced = [...text.matchAll(/^ *```[a-z]*\n([\s\S]*?)^ *```/gm)].flatMap((m) => m[1]!.split('\n'));
  const prose = text.replace(/^ *```[a-z]*\n[\s\S]*?^ *```/gm, '');
  // A span may wrap onto the next line of its paragraph.
  const spans = [...prose.matchAll(/`((?:[^`\n]|\n(?!\n))+)`/g)].map((m) => m[1]!.replace(/\s*\n\s*/g, ' '));
  return [...fenced, ...spans];
}

/** Fenced blocks of one language, dedented. */
function blocks(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp(`^( *)\`\`\`${lang}\\n([\\s\\S]*?)^ *\`\`\``, 'gm'))].map((m) =>
    m[2]!
      .split('\n')
      .map((l) => l.slice(m[1]!.length))
      .join('\n'),
  );
}

describe('README claims: files', () => {
  // `tools/runtimes`, not `tools/`: `tools/list` is an MCP method.
  const ROOTS = ['example', 'scripts', 'test', 'src', 'bench', 'docs', 'tools/runtimes', 'drizzle'];
  const pathRe = new RegExp(`(?<![\\w/.$<-])(?:${ROOTS.join('|')})/[\\w./-]*[\\w/]`, 'g');

  it.each(DOCS.map((d) => [d.rel, d] as const))('%s names only paths that exist', (_rel, doc) => {
    const named = new Set<string>();
    for (const m of doc.text.matchAll(pathRe)) named.add(m[0]);
    // Relative links resolve against the document's own directory.
    for (const m of doc.text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(m[1]!)) continue;
      named.add(join(doc.dir, m[1]!));
    }
    expect(named.size).toBeGreaterThan(0);
    // Made on first use (scripts/runtimes.mjs), so absent from a fresh checkout.
    for (const p of named)
      if (!p.includes('node_modules')) expect(existsSync(join(ROOT, p)), `${doc.rel}: ${p}`).toBe(true);
  });
});

describe('README claims: coverage', () => {
  const readme = DOCS[0]!.text;
  const section = (title: string) => {
    const at = readme.indexOf(`\n## ${title}\n`);
    expect(at, title).toBeGreaterThan(0);
    return readme.slice(at, readme.indexOf('\n## ', at + 1));
  };

  it('shows every verb in "The command line"', () => {
    const text = section('The command line');
    for (const v of VERBS) expect(text, v.name).toMatch(new RegExp(`\\b${v.name}\\b`));
  });

  it('lists every example directory under "Examples"', () => {
    const text = section('Examples');
    for (const d of readdirSync(join(ROOT, 'example'))) expect(text, d).toContain(`[\`example/${d}\`]`);
  });
});

describe('README claims: npm scripts and bench groups', () => {
  const scripts = Object.keys(JSON.parse(read('package.json')).scripts as Record<string, string>);
  const benchSource = read('bench/run.ts');
  const groups = benchSource.slice(benchSource.indexOf('const groups'), benchSource.indexOf('\n};'));
  const benchGroups = [...groups.matchAll(/^ {2}(\w+): /gm)].map((m) => m[1]!);

  it('runs only scripts package.json defines', () => {
    let seen = 0;
    for (const doc of DOCS)
      for (const m of doc.text.matchAll(/\bnpm (?:run ([\w:-]+)|(start|test)\b)/g)) {
        seen++;
        expect(scripts, `${doc.rel}: npm ${m[0]}`).toContain(m[1] ?? m[2]);
      }
    expect(seen).toBeGreaterThan(5);
  });

  it('names only bench groups bench/run.ts has', () => {
    expect(benchGroups.length).toBeGreaterThan(5);
    let seen = 0;
    for (const doc of DOCS)
      for (const m of doc.text.matchAll(/--only ([\w,]+)/g))
        for (const g of m[1]!.split(',')) {
          seen++;
          expect(benchGroups, `${doc.rel}: --only ${g}`).toContain(g);
        }
    expect(seen).toBeGreaterThan(2);
  });
});

describe('README claims: API routes', () => {
  const routes = ROUTE_DOCS.map((r) => new RegExp(`^${r.path.replace(/\{[^}]+\}/g, '[^/]+')}$`));
  const tops = new Set(ROUTE_DOCS.map((r) => r.path.split('/')[1]).filter(Boolean));

  /** `/jobs/NAME/runs`, `GET /dags/<dag>/runs/<runKey>`, `http://127.0.0.1:8080/jobs/x/calendar.ics?...`. */
  function routesIn(text: string): string[] {
    const found: string[] = [];
    for (const s of snippets(text)) {
      for (const m of s.matchAll(/(?:^|\s|(?:127\.0\.0\.1|localhost):\d+)(\/[\w.{}<>$*/-]+)/g)) {
        const path = m[1]!.replace(/\/\*$|\*$/, '').replace(/\/$/, '');
        if (!tops.has(path.split('/')[1]!)) continue;
        found.push(path);
      }
    }
    return found;
  }

  it.each(DOCS.map((d) => [d.rel, d] as const))('%s names only routes the daemon serves', (_rel, doc) => {
    for (const path of routesIn(doc.text)) {
      const prefix =
        routes.some((r) => r.test(path)) || ROUTE_DOCS.some((r) => r.path.startsWith(`${path}/`));
      expect(prefix, `${doc.rel}: ${path}`).toBe(true);
    }
  });

  it('finds the routes it checks', () => {
    expect(routesIn(DOCS[0]!.text).length).toBeGreaterThan(30);
  });
});

/** The issues loading `yaml` (with `files` beside it) reports; [] when it loads. */
function loadIssues(yaml: string, files: Record<string, string> = {}): string[] {
  const dir = writeTree({ ...files, 'cronstable.yaml': yaml });
  try {
    // The interpolation example's `${REGION}` has no fallback on purpose: its reader exports it.
    loadConfig(join(dir, 'cronstable.yaml'), { cwd: dir, env: { ...process.env, REGION: 'eu-west-1' } });
    return [];
  } catch (e) {
    if (e instanceof ConfigError) return [e.message];
    throw e;
  }
}

describe('README claims: configuration', () => {
  it.each(DOCS.map((d) => [d.rel, d] as const))('every YAML block of %s loads', (_rel, doc) => {
    for (const yaml of blocks(doc.text, 'yaml')) {
      // Include targets are the reader's own files: an empty one stands in.
      // `${VAR:-default}` in an include path names the default's file (VAR unset here).
      const includes = [...yaml.matchAll(/^ {2}- (\S+\.ya?ml)/gm)].map((m) =>
        m[1]!.replace(/\$\{\w+:-([^}]*)\}/g, '$1'),
      );
      const stubs = Object.fromEntries(includes.map((f) => [f, 'defaults:\n  shell: /bin/sh\n']));
      expect(loadIssues(yaml, stubs), yaml).toEqual([]);
    }
  });

  /** `web.nodeHistory.interval` -> the YAML that sets it, under the section it belongs to. */
  function yamlFor(dotted: string): string {
    const parts = dotted.split('.');
    if (parts[0] === 'metrics') parts.unshift('web');
    if (isLeaseBackendKind(parts[0])) parts.unshift('cluster');
    const inJob = !['web', 'state', 'cluster', 'mcp'].includes(parts[0]!);
    const lines = inJob ? ['jobs:', '  - name: j', '    command: "true"', '    schedule: "* * * * *"'] : [];
    const base = inJob ? 4 : 0;
    parts.forEach((p, i) => {
      lines.push(`${' '.repeat(base + 2 * i)}${p}:${i === parts.length - 1 ? ' x' : ''}`);
    });
    return `${lines.join('\n')}\n`;
  }

  it('names only config keys the schema accepts', () => {
    const FILE_EXT = /\.(json|ya?ml|ics|md|ts)$/; // `mcp.json` is a file, not a key
    const sections = [
      'web',
      'state',
      'cluster',
      'mcp',
      'metrics',
      'monitorResources',
      'failsWhen',
      ...LEASE_BACKENDS,
    ];
    const keyRe = new RegExp(`^(?:${sections.join('|')})\\.[a-zA-Z]+(?:\\.[a-zA-Z]+)*$`);
    const named = new Set<string>();
    for (const doc of DOCS)
      for (const s of snippets(doc.text)) if (keyRe.test(s) && !FILE_EXT.test(s)) named.add(s);
    expect(named.size).toBeGreaterThan(10);
    for (const key of named) {
      const unknown = loadIssues(yamlFor(key)).filter((m) => m.includes('not in schema'));
      expect(unknown, key).toEqual([]);
    }
    // The probe itself can fail: a misspelt key is reported.
    expect(loadIssues(yamlFor('web.nodeHistry')).join('')).toContain('not in schema');
  });
});

describe('README claims: metrics', () => {
  const source = readdirSync(join(ROOT, 'src', 'metrics'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => read(`src/metrics/${f}`))
    .join('\n');

  /** The label names the source gives family `name` ([] for a family without labels). */
  function labelsOf(name: string): string[] | undefined {
    // The family's definition is the mention with labels, if any (others are lists of names).
    let found: string[] | undefined;
    for (let at = source.indexOf(`'${name}'`); at >= 0; at = source.indexOf(`'${name}'`, at + 1)) {
      const next = source.slice(at, at + 400);
      const m = /labelNames: \[([^\]]*)\]/.exec(next.slice(0, next.indexOf('\n    }') + 1 || undefined));
      if (m) return [...m[1]!.matchAll(/'(\w+)'/g)].map((l) => l[1]!);
      // A per-job gauge (metrics/jobs.ts) carries `job_name` through its class.
      if (source.slice(Math.max(0, at - 12), at).endsWith('new PerJob(')) return ['job_name'];
      found = [];
    }
    return found;
  }

  it('names only metric families that exist, with their labels', () => {
    const readme = DOCS[0]!.text;
    const named = [...readme.matchAll(/`(cronstable_[a-z_]+)(?:\{([a-z_, ]+)\})?`/g)].map((m) => ({
      name: m[1]!,
      labels: m[2]?.split(',').map((l) => l.trim()),
    }));
    // "Metrics: `cronstable_cluster_enabled`, `_quorate`, ...": the rest share the prefix.
    const cluster = readme.slice(readme.indexOf('Metrics: `cronstable_cluster_enabled`'));
    for (const m of cluster
      .slice(0, cluster.indexOf('and the counters'))
      .matchAll(/`(_[a-z_]+)(?:\{([a-z_,]+)\})?`/g))
      named.push({ name: `cronstable_cluster${m[1]}`, labels: m[2]?.split(',') });
    expect(named.length).toBeGreaterThan(15);
    for (const { name, labels } of named) {
      const actual = labelsOf(name);
      expect(actual, `${name} exists`).toBeDefined();
      if (labels) expect(actual!.sort(), `${name} labels`).toEqual([...labels].sort());
    }
  });
});

describe('README claims: command-line flags', () => {
  const BIN = join(ROOT, 'dist', 'cronstable.mjs');
  const verbNames = new Set(VERBS.map((v) => v.name));
  const helpCache = new Map<string, string>();
  function help(args: string[]): string {
    const key = args.join(' ');
    if (!helpCache.has(key)) {
      const r = spawnSync(process.execPath, [BIN, ...args, '--help'], {
        encoding: 'utf8',
        env: { ...process.env, CRONSTABLE_JOB_API: '', CRONSTABLE_RUN_TOKEN: '' },
        timeout: 30_000,
      });
      helpCache.set(key, `${r.stdout}${r.stderr}`);
    }
    return helpCache.get(key)!;
  }

  /** `cronstable [-c X] VERB [ACTION] ... --flag ...` in a snippet: the verb, its action, its flags. */
  function invocations(snippet: string): { verb: string | null; action: string | null; flags: string[] }[] {
    const out: { verb: string | null; action: string | null; flags: string[] }[] = [];
    for (const m of snippet.matchAll(
      /(?:^|[\s($"])(?:cronstable|node dist\/cronstable\.mjs)((?: [^\s;&#)]+)*)/g,
    )) {
      // Usage lines bracket their flags: `[--tz ZONE]`, `[--boot | --no-boot]`.
      const words = m[1]!
        .trim()
        .split(/\s+/)
        .map((w) => w.replace(/^[[(]+|[\])]+$/g, ''));
      const end = words.indexOf('--');
      const args = end < 0 ? words : words.slice(0, end);
      const vi = args.findIndex((w) => verbNames.has(w));
      const verb = vi < 0 ? null : args[vi]!;
      const next = vi < 0 ? undefined : args[vi + 1];
      const action = next && /^[a-z]+$/.test(next) ? next : null;
      out.push({ verb, action, flags: args.filter((w) => /^--[a-z][a-z-]*$/.test(w)) });
    }
    return out;
  }

  it('passes each verb only flags its --help lists', () => {
    let checked = 0;
    for (const doc of DOCS)
      for (const s of snippets(doc.text))
        for (const { verb, action, flags } of invocations(s)) {
          if (flags.length === 0) continue;
          const texts = [help([])];
          if (verb) texts.push(help([verb]));
          if (verb && action) texts.push(help([verb, action]));
          for (const f of flags) {
            checked++;
            expect(
              texts.some((t) => new RegExp(`${f}(?![a-z-])`).test(t)),
              `${doc.rel}: ${f} in '${s}'`,
            ).toBe(true);
          }
        }
    expect(checked).toBeGreaterThan(30);
  });

  it('passes npm run fleet and grand-tour only flags their usage lists', () => {
    const usage: Record<string, string> = {
      fleet: read('scripts/fleet/main.ts'),
      'grand-tour': read('scripts/tour/main.ts'),
    };
    let checked = 0;
    for (const doc of DOCS)
      for (const m of doc.text.matchAll(/npm run (fleet|grand-tour) -- ([^\n#`]*)/g))
        for (const f of m[2]!.match(/--[a-z][a-z-]*/g) ?? []) {
          checked++;
          expect(usage[m[1]!], `${doc.rel}: npm run ${m[1]} -- ${f}`).toMatch(new RegExp(`^ {2}${f} `, 'm'));
        }
    // The prose lists the rest: "Other flags: `--interval` (...), `--drift-after`, ...".
    const readme = DOCS[0]!.text;
    const fleetProse = readme.slice(readme.indexOf('## Run a fleet'), readme.indexOf('| Backend |'));
    const tourProse = readme.slice(readme.indexOf('## Grand tour'), readme.indexOf('| What | Where |'));
    for (const [name, prose] of [
      ['fleet', fleetProse],
      ['grand-tour', tourProse],
    ] as const)
      for (const f of prose.match(/`(--[a-z][a-z-]*)/g) ?? []) {
        checked++;
        expect(usage[name], `README: ${name} ${f}`).toMatch(new RegExp(`^ {2}${f.slice(1)} `, 'm'));
      }
    expect(checked).toBeGreaterThan(15);
  });
});

/** `a (b (c)) d` -> `a  d`: the README's cells explain values in parentheses. */
function withoutParens(text: string): string {
  let depth = 0;
  let out = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (depth === 0) out += ch;
    if (ch === ')') depth = Math.max(0, depth - 1);
  }
  return out;
}

describe('README claims: SQL views', () => {
  it('lists the columns each view of a fresh store has', async () => {
    const db = await openDatabase(join(writeTree({}), 'cronstable.db'), { busyTimeoutMs: 1000 });
    migrate(db);
    const columns = (view: string) =>
      db
        .prepare(`SELECT name FROM pragma_table_info(?)`)
        .all<{ name: string }>(view)
        .map((r) => r.name)
        .sort();
    const readme = DOCS[0]!.text;
    const table = readme.slice(readme.indexOf('| View '), readme.indexOf('\n\n', readme.indexOf('| View ')));
    const rows = [...table.matchAll(/^\| `(\w+)` +\|[^|]*\|(.*)\|$/gm)];
    const views = new Map(rows.map((m) => [m[1]!, m[2]!]));
    expect(views.size).toBe(10);
    for (const [view, cell] of views) {
      const named = [...withoutParens(cell).matchAll(/`(\w+)`/g)].map((m) => m[1]!);
      // "every view has an `ns` column", said once above the table.
      expect(columns(view), view).toEqual([...new Set([...named, 'ns'])].sort());
    }
    db.close();
  });
});
