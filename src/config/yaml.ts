// The strict YAML dialect of spec 01 §1.6: every scalar is text, and flow style,
// anchors, aliases, tags and duplicate keys are errors. Typing happens in schema.ts.
import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import type { ConfigIssue, SourcePos } from './errors.ts';

export interface YamlSource {
  file: string;
  root: Node | null;
  lines: LineCounter;
}

export function positionOf(src: { file: string; lines: LineCounter }, offset: number): SourcePos {
  const p = src.lines.linePos(offset);
  return { file: src.file, line: p.line, col: p.col };
}

export function nodePos(src: { file: string; lines: LineCounter }, node: Node | null | undefined): SourcePos {
  return positionOf(src, node?.range?.[0] ?? 0);
}

function describeYamlError(code: string, message: string): string {
  if (code === 'DUPLICATE_KEY') return 'duplicate key in one mapping';
  return message.split('\n')[0] ?? message;
}

/** Parses one YAML file; returns the document tree or the dialect errors, each with a position. */
export function parseStrictYaml(text: string, file: string): { source: YamlSource; issues: ConfigIssue[] } {
  const lines = new LineCounter();
  const doc: Document.Parsed = parseDocument(text, {
    schema: 'failsafe',
    lineCounter: lines,
    uniqueKeys: true,
    prettyErrors: false,
    strict: true,
  });
  const source: YamlSource = { file, root: doc.contents, lines };
  const issues: ConfigIssue[] = [];
  const at = (offset: number, message: string) => {
    const p = positionOf(source, offset);
    issues.push({ file, line: p.line, col: p.col, message });
  };
  for (const e of doc.errors) at(e.pos[0], describeYamlError(e.code, e.message));
  if (doc.errors.length > 0) return { source, issues };

  const walk = (node: unknown): void => {
    if (node === null || node === undefined) return;
    if (isAlias(node)) {
      at(node.range?.[0] ?? 0, `aliases (*${node.source}) are not allowed; repeat the value instead`);
      return;
    }
    const n = node as Node;
    if (n.anchor) at(n.range?.[0] ?? 0, `anchors (&${n.anchor}) are not allowed`);
    if (n.tag)
      at(n.range?.[0] ?? 0, `tags (${n.tag}) are not allowed; every value is text until the schema types it`);
    if (isMap(n) || isSeq(n)) {
      if (n.flow) {
        const open = isMap(n) ? '{...}' : '[...]';
        at(
          n.range?.[0] ?? 0,
          `flow style ${open} is not allowed; use block style (one item per line), or quote the text`,
        );
      }
      if (isMap(n)) {
        for (const pair of n.items) {
          if (!isScalar(pair.key))
            at((pair.key as Node | null)?.range?.[0] ?? 0, 'mapping keys must be plain text');
          walk(pair.key);
          walk(pair.value);
        }
      } else {
        for (const item of n.items) walk(item);
      }
    }
  };
  walk(doc.contents);
  return { source, issues };
}
