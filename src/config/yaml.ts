// The strict YAML dialect of spec 01 §1.6: every scalar is text, and flow style, anchors,
// aliases, tags and duplicate keys are errors (strict-yaml.ts). Typing happens in validators.ts.
import type { ConfigIssue, SourcePos } from './errors.ts';
import { LineIndex, parseStrict, type YNode } from './strict-yaml.ts';

export interface YamlSource {
  file: string;
  root: YNode | null;
  lines: LineIndex;
}

export function positionOf(src: { file: string; lines: LineIndex }, offset: number): SourcePos {
  const p = src.lines.pos(offset);
  return { file: src.file, line: p.line, col: p.col };
}

export function nodePos(src: { file: string; lines: LineIndex }, node: YNode | null | undefined): SourcePos {
  return positionOf(src, node?.offset ?? 0);
}

/** Parses one YAML file; returns the document tree or the dialect errors, each with a position. */
export function parseStrictYaml(text: string, file: string): { source: YamlSource; issues: ConfigIssue[] } {
  const { root, errors } = parseStrict(text);
  const source: YamlSource = { file, root, lines: new LineIndex(text) };
  const issues: ConfigIssue[] = errors.map((e) => {
    const p = positionOf(source, e.offset);
    return { file, line: p.line, col: p.col, message: e.message };
  });
  return { source, issues };
}
