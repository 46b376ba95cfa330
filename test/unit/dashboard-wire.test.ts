// One wire contract (issue 30 item 1): the shapes the dashboard model, the browser app and the TUI read from
// the daemon are the types src/api/wire infers from its zod schemas, never hand-written copies that can drift
// from what the daemon sends. Three rules over src/dashboard, src/tui and src/webui:
// - no `interface Api…`, and no `type Api… =` that is not built from a wire type (a re-export, an alias, or a
//   Pick / Omit / Partial / `Flat` over one);
// - no inline shape as the type of a fetched body (`json<{ runs: … }>(…)`): name the wire type instead;
// - every import of src/api/wire is type-only, so neither bundle loads zod or the schemas.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const FOLDERS = ['src/dashboard', 'src/tui', 'src/webui'];
const WIRE = 'src/api/wire/';

/**
 * `Api…` types that are view models, not daemon payloads (name: why). Empty today: every `Api…` type of these
 * folders is a payload. A new entry needs its reason.
 */
const VIEW_MODELS: Record<string, string> = {};

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return e.name === 'generated' ? [] : sourcesUnder(join(dir, e.name));
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : [];
  });
}

/** Every type name a type node mentions (`Foo`, `Foo<Bar>`, `Pick<Foo, 'a'>['b']`, …). */
function typeNames(node: ts.Node, source: ts.SourceFile): string[] {
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isTypeReferenceNode(n)) out.push(n.typeName.getText(source));
    ts.forEachChild(n, visit);
  };
  visit(node);
  return out;
}

/** The rule breaks of one module, as `file: what` lines. `rel` is its path from the repo root. */
function wireViolations(rel: string, text: string): string[] {
  const source = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TSX);
  const out: string[] = [];
  // Local names bound to a wire type, and to `Api…` types of sibling modules (checked in their own file).
  const derived = new Set<string>();
  for (const node of source.statements) {
    if (!ts.isImportDeclaration(node) || !ts.isStringLiteral(node.moduleSpecifier)) continue;
    const spec = node.moduleSpecifier.text;
    const fromWire =
      spec.startsWith('.') && relative(root, resolve(root, dirname(rel), spec)).startsWith(WIRE);
    const clause = node.importClause;
    if (fromWire && clause?.isTypeOnly !== true) out.push(`${rel}: imports ${spec} as a value`);
    const bindings = clause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const el of bindings.elements)
      if (fromWire || el.name.text.startsWith('Api') || el.name.text === 'Flat') derived.add(el.name.text);
  }
  const visit = (n: ts.Node): void => {
    if (ts.isInterfaceDeclaration(n) && /^Api[A-Z]/.test(n.name.text) && !(n.name.text in VIEW_MODELS))
      out.push(`${rel}: interface ${n.name.text} is hand-written`);
    if (ts.isTypeAliasDeclaration(n) && /^Api[A-Z]/.test(n.name.text) && !(n.name.text in VIEW_MODELS)) {
      const names = typeNames(n.type, source).map((t) => t.split('.')[0]!);
      if (ts.isTypeLiteralNode(n.type) || !names.some((t) => derived.has(t)))
        out.push(`${rel}: type ${n.name.text} is not built from a wire type`);
    }
    if (
      ts.isCallExpression(n) &&
      ts.isPropertyAccessExpression(n.expression) &&
      n.expression.name.text === 'json' &&
      n.typeArguments?.some((t) => ts.isTypeLiteralNode(t))
    )
      out.push(
        `${rel}: json<{ … }> at line ${source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1}`,
      );
    ts.forEachChild(n, visit);
  };
  visit(source);
  return out;
}

describe('the dashboards read the wire contract', () => {
  const files = FOLDERS.flatMap((f) => sourcesUnder(join(root, f)));

  it('declares no payload shape of its own and fetches no inline shape', () => {
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((f) => wireViolations(relative(root, f), readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });

  it('reads the wire types where it fetches them', () => {
    // The model re-exports the inferred types under the names its readers use.
    const types = readFileSync(join(root, 'src/dashboard/types.ts'), 'utf8');
    expect(types).toMatch(/export type ApiJob = Omit<JobRow, 'schedule_findings'>/);
    expect(types).toMatch(/export type ApiCluster = Flat<ClusterBody>/);
  });

  it('catches a hand-written payload, an alias of a literal, an inline fetch shape and a value import', () => {
    const bad = [
      "import { JobRowSchema } from '../api/wire/jobs.schema.ts';",
      "import type { JobRow } from '../api/wire/jobs.schema.ts';",
      'export interface ApiThing { name: string }',
      'export type ApiOther = { name: string };',
      'export type ApiWrapped = { row: JobRow };',
      'export type ApiFine = Pick<JobRow, "name">;',
      "const r = api.json<{ runs: string[] }>('/x');",
    ].join('\n');
    expect(wireViolations('src/dashboard/bad.ts', bad)).toEqual([
      'src/dashboard/bad.ts: imports ../api/wire/jobs.schema.ts as a value',
      'src/dashboard/bad.ts: interface ApiThing is hand-written',
      'src/dashboard/bad.ts: type ApiOther is not built from a wire type',
      'src/dashboard/bad.ts: type ApiWrapped is not built from a wire type',
      'src/dashboard/bad.ts: json<{ … }> at line 7',
    ]);
  });
});
