// Differential tests of the hand-written strict-YAML parser (src/config/strict-yaml.ts) against
// the `yaml` package, which stays a dev-time oracle only: golden cases for every construct and
// every error, generated documents compared value-for-value and position-for-position,
// mutated documents (accept/reject must agree, except for the differences documented below and in
// strict-yaml.ts), and every YAML file in the repository.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { LineIndex, MAX_NESTING, MESSAGES, parseStrict, type YNode } from '../../src/config/strict-yaml.ts';

// ---------------------------------------------------------------------------------------------
// Oracle: `yaml` with the failsafe schema plus a walk for the forbidden constructs (the
// implementation this parser replaced).

type OracleResult =
  | { ok: true; value: unknown; root: YamlNode | null }
  | { ok: false; errors: { offset: number; code: string }[] };

function oracle(text: string): OracleResult {
  const doc = parseDocument(text, {
    schema: 'failsafe',
    uniqueKeys: true,
    strict: true,
    prettyErrors: false,
  });
  const errors = doc.errors.map((e) => ({ offset: e.pos[0], code: e.code as string }));
  if (errors.length > 0) return { ok: false, errors };
  const walk = (node: unknown): void => {
    if (node === null || node === undefined) return;
    if (isAlias(node)) {
      errors.push({ offset: node.range?.[0] ?? 0, code: 'ALIAS' });
      return;
    }
    const n = node as YamlNode;
    if (n.anchor) errors.push({ offset: n.range?.[0] ?? 0, code: 'ANCHOR' });
    if (n.tag) errors.push({ offset: n.range?.[0] ?? 0, code: 'TAG' });
    if (isMap(n) || isSeq(n)) {
      if (n.flow) errors.push({ offset: n.range?.[0] ?? 0, code: 'FLOW' });
      if (isMap(n)) {
        for (const pair of n.items) {
          if (!isScalar(pair.key)) errors.push({ offset: 0, code: 'KEY' });
          walk(pair.key);
          walk(pair.value);
        }
      } else for (const item of n.items) walk(item);
    }
  };
  walk(doc.contents);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: doc.toJS(), root: doc.contents as YamlNode | null };
}

function toJS(node: YNode | null): unknown {
  if (node === null) return null;
  if (node.kind === 'scalar') return node.value;
  if (node.kind === 'seq') return node.items.map(toJS);
  const out: Record<string, unknown> = {};
  for (const pair of node.items)
    Object.defineProperty(out, pair.key.value, { value: toJS(pair.value), enumerable: true, writable: true });
  return out;
}

function value(text: string): unknown {
  const r = parseStrict(text);
  expect(r.errors, JSON.stringify(text)).toEqual([]);
  return toJS(r.root);
}

/** Every node's offset must equal `yaml`'s range[0] for the same node (keys and empty values too). */
function comparePositions(mine: YNode | null, theirs: YamlNode | null, shift = 0, where = '$'): string[] {
  if (mine === null || theirs === null) return mine === theirs ? [] : [`${where}: null mismatch`];
  const out: string[] = [];
  const start = (theirs.range?.[0] ?? Number.NaN) + shift;
  if (mine.offset !== start) out.push(`${where}: offset ${mine.offset} vs yaml ${start}`);
  if (mine.kind === 'map' && isMap(theirs)) {
    mine.items.forEach((pair, i) => {
      const other = theirs.items[i];
      const keyStart = ((other?.key as YamlNode | null)?.range?.[0] ?? Number.NaN) + shift;
      if (pair.key.offset !== keyStart) out.push(`${where}.key${i}: ${pair.key.offset} vs ${keyStart}`);
      const value = (other?.value ?? null) as YamlNode | null;
      out.push(...comparePositions(pair.value, value, shift, `${where}.${pair.key.value}`));
    });
  } else if (mine.kind === 'seq' && isSeq(theirs)) {
    mine.items.forEach((item, i) => {
      out.push(
        ...comparePositions(item, (theirs.items[i] ?? null) as YamlNode | null, shift, `${where}[${i}]`),
      );
    });
  }
  return out;
}

/** Constructs `yaml` accepts that this dialect rejects on purpose (complex keys, directives, empty keys). */
const DELIBERATE: string[] = [MESSAGES.complexKey, MESSAGES.directive, MESSAGES.emptyKey];

/**
 * Verdicts of one differential comparison. `deliberate`: `yaml` accepts a construct the dialect
 * rejects on purpose. `yaml-bug`: `yaml` deviates from YAML 1.2 and this parser does not (see
 * yamlLeniency / yamlCommentBug).
 */
type Verdict = 'both-ok' | 'both-error' | 'deliberate' | 'yaml-bug';

/** Whether `yaml` read a plain empty mapping key somewhere (`: v`, or a stray ':' it took for one). */
function hasEmptyPlainKey(node: unknown): boolean {
  if (isMap(node))
    return node.items.some((pair) => {
      const key = pair.key as YamlNode | null;
      const empty = key === null || (isScalar(key) && key.type === 'PLAIN' && (key.value ?? '') === '');
      return empty || hasEmptyPlainKey(pair.value);
    });
  if (isSeq(node)) return node.items.some(hasEmptyPlainKey);
  return false;
}

/**
 * Why this parser may reject a text `yaml` accepts. `deliberate`: complex keys, directives, and
 * empty plain keys (including a stray ':' that `yaml` reads as one, `a: 0\n :` or `4: > :`, or as
 * the indicator of a key on the line above, `N:\ng\n :`).
 * `yaml-bug`: `yaml` accepts what YAML 1.2 rejects: an unterminated quoted scalar whose text, cut
 * at the end of the input or before an under-indented line, ends with an (escaped) quote
 * (`a: 'x''`); a tab in a block scalar's indentation, which it sometimes takes as content; a
 * document marker line inside a quoted scalar.
 */
function yamlLeniency(
  text: string,
  theirs: OracleResult,
  errors: { offset: number; message: string }[],
): Verdict | null {
  if (errors.every((e) => DELIBERATE.includes(e.message))) return 'deliberate';
  if (theirs.ok && hasEmptyPlainKey(theirs.root)) return 'deliberate';
  // A line starting with ':': an empty key, or (for `yaml`) the ':' of the key on the line above.
  if (/^[ \t]*:([ \t\r\n]|$)/m.test(text)) return 'deliberate';
  const first = errors[0];
  const quoteError =
    first?.message === MESSAGES.quoteIndent || first?.message.startsWith('missing closing quote');
  if (quoteError && /['"]$/.test(text)) return 'yaml-bug';
  if (first?.message === MESSAGES.blockTabIndent) return 'yaml-bug';
  // A `---` / `...` line at column 0 ends the document even inside a quoted scalar (YAML 1.2
  // c-forbidden; libyaml says "found unexpected document separator"); `yaml` sometimes reads it
  // as text of the scalar.
  if (first?.message === MESSAGES.markerInQuote) return 'yaml-bug';
  // `yaml` ends a quoted scalar before an under-indented line, and calls it closed when the cut
  // text happens to end with a quote (`a: '''` + newline + `b: y'` reads as a: "'", b: "y'").
  if (first?.message === MESSAGES.quoteIndent) {
    const nl = text.lastIndexOf('\n', first.offset);
    const last = text[nl - 1] === '\r' ? text[nl - 2] : text[nl - 1];
    if (last === "'" || last === '"') return 'yaml-bug';
  }
  return null;
}

/**
 * The text without comment-only lines (YAML 1.2 ignores them; `yaml` sometimes does not): each
 * such line removed alone, then all of them.
 */
function withoutComments(text: string): string[] {
  const lines = text.split('\n');
  const comments = lines.flatMap((line, i) => (/^[ \t]*#/.test(line) ? [i] : []));
  const variants = comments.slice(0, 30).map((i) => [...lines.slice(0, i), ...lines.slice(i + 1)].join('\n'));
  if (comments.length > 1) variants.push(lines.filter((_, i) => !comments.includes(i)).join('\n'));
  return variants;
}

/**
 * `yaml` rejects a comment line between `key:` and a plain value on a following line
 * (`a:\n#c\n  5\nb: 1` → MULTILINE_IMPLICIT_KEY), which YAML 1.2 allows and this parser accepts.
 * Such a text counts as agreed when `yaml` reads it as this parser did once the comment lines
 * just before each such error (or one comment line, or all of them) are removed.
 */
function yamlCommentBug(text: string, theirs: OracleResult, root: YNode | null): boolean {
  let current = text;
  let result = theirs;
  for (let round = 0; round < 10 && !result.ok; round++) {
    const error = result.errors.find((e) => e.code === 'MULTILINE_IMPLICIT_KEY');
    if (!error) break;
    const lines = current.split('\n');
    let line = current.slice(0, error.offset).split('\n').length - 1;
    let removed = 0;
    for (line--; line >= 0 && /^[ \t]*(#.*)?\r?$/.test(lines[line]!); line--) {
      if (lines[line]!.includes('#')) {
        lines.splice(line, 1);
        removed++;
      }
    }
    if (removed === 0) break;
    current = lines.join('\n');
    result = oracle(current);
  }
  if (result.ok && JSON.stringify(result.value) === JSON.stringify(toJS(root))) return true;
  return withoutComments(text).some((variant) => {
    const r = oracle(variant);
    return r.ok && JSON.stringify(r.value) === JSON.stringify(toJS(root));
  });
}

/** Compares one text with the oracle; throws with a readable diff on any disagreement. */
function differential(text: string): Verdict {
  // `yaml` mishandles a BOM followed by indentation or '- ' (BAD_INDENT / UNEXPECTED_TOKEN), so it
  // reads the text without the BOM; its offsets are then one less than ours.
  const bom = text.startsWith('\ufeff') ? 1 : 0;
  const theirs = oracle(text.slice(bom));
  const mine = parseStrict(text);
  const label = JSON.stringify(text);
  if (!theirs.ok) {
    if (mine.errors.length === 0) {
      if (yamlCommentBug(text.slice(bom), theirs, mine.root)) return 'yaml-bug';
      throw new Error(`accepted what yaml rejects (${JSON.stringify(theirs.errors)}): ${label}`);
    }
    return 'both-error';
  }
  if (mine.errors.length > 0) {
    const excuse = yamlLeniency(text, theirs, mine.errors);
    if (excuse) return excuse;
    // `yaml` also accepts some mis-indented plain values when a comment line precedes them
    // (`u:\n#c\n x\ny` reads as u: 'x y'); without the comment lines it rejects them too.
    if (withoutComments(text.slice(bom)).some((variant) => !oracle(variant).ok)) return 'yaml-bug';
    throw new Error(`rejected what yaml accepts (${JSON.stringify(mine.errors)}): ${label}`);
  }
  const got = toJS(mine.root);
  // An empty document (`---` alone) is '' for yaml and null (= {}) here, per spec 01 §1.6.
  const want = theirs.value === '' && mine.root === null ? null : theirs.value;
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    // The same comment-line bug: a list item after a comment line continues onto a less indented
    // `-` line (`-\n#c\n  u\n-` reads as ['u -']).
    const agrees = (variant: string) => {
      const r = oracle(variant);
      return r.ok && JSON.stringify(r.value) === JSON.stringify(got);
    };
    if (withoutComments(text.slice(bom)).some(agrees)) return 'yaml-bug';
    throw new Error(
      `value differs for ${label}\n  yaml: ${JSON.stringify(want)}\n  mine: ${JSON.stringify(got)}`,
    );
  }
  if (mine.root !== null) {
    const diffs = comparePositions(mine.root, theirs.root, bom);
    if (diffs.length > 0) throw new Error(`positions differ for ${label}: ${diffs.slice(0, 5).join('; ')}`);
  }
  return 'both-ok';
}

// ---------------------------------------------------------------------------------------------
// (a) golden cases

describe('strict YAML parser: golden values', () => {
  const cases: [string, string, unknown][] = [
    ['empty file', '', null],
    ['comments only', '# a\n\n  # b\n', null],
    ['document start only', '---\n', null],
    ['document start and end', '---\n...\n', null],
    ['plain map', 'a: 1\nb: two words\n', { a: '1', b: 'two words' }],
    [
      'every scalar is text',
      'a: 1e3\nb: 0x1F\nc: ~\nd: 012\ne: yes\nf: null\n',
      {
        a: '1e3',
        b: '0x1F',
        c: '~',
        d: '012',
        e: 'yes',
        f: 'null',
      },
    ],
    ['empty values', 'a:\nb:   # c\nc: ""\nd: \'\'\n', { a: '', b: '', c: '', d: '' }],
    ['quoted keys', '"a b": 1\n\'c\': 2\n"": 3\n', { 'a b': '1', c: '2', '': '3' }],
    ['spaces before the colon', 'a  : b\n', { a: 'b' }],
    ['key order kept', 'z: 1\na: 2\nm: 3\n', { z: '1', a: '2', m: '3' }],
    ['nested maps', 'a:\n  b:\n    c: 1\n  d: 2\n', { a: { b: { c: '1' }, d: '2' } }],
    ['sequence of scalars', '- a\n- b\n', ['a', 'b']],
    ['sequence at the key indentation', 'a:\n- x\n- y\nb: 1\n', { a: ['x', 'y'], b: '1' }],
    [
      'compact maps in a list',
      '- a: 1\n  b: 2\n-   c: 3\n    d: 4\n',
      [
        { a: '1', b: '2' },
        { c: '3', d: '4' },
      ],
    ],
    ['nested lists', '- - x\n  - y\n- z\n', [['x', 'y'], 'z']],
    ['empty list items', '-\n- \n- # c\n- x\n', ['', '', '', 'x']],
    ['list item on the next line', '-\n  a: 1\n', [{ a: '1' }]],
    ['list under a compact key', '- a:\n  - b\n  c: 1\n', [{ a: ['b'], c: '1' }]],
    [
      'colons and hashes inside plain text',
      'a: x:y\nb: x#y\nc: http://h:1/p\nd: -x\ne: :x\nf: ?x\n',
      {
        a: 'x:y',
        b: 'x#y',
        c: 'http://h:1/p',
        d: '-x',
        e: ':x',
        f: '?x',
      },
    ],
    ['comment after a value', 'a: x # c\nb: x\t# c\n', { a: 'x', b: 'x' }],
    ['multi-line plain folding', 'a: x\n  y\n\n  z\n\n\n  w\n', { a: 'x y\nz\n\nw' }],
    ['plain on the next line', 'a:\n  x\n  y\n', { a: 'x y' }],
    ['plain continuation in a list', '- a\n b\n- c\n  - d\n', ['a b', 'c - d']],
    ['single quotes', "a: 'it''s'\nb: '  x  '\nc: 'x\n  y\n\n  z'\n", { a: "it's", b: '  x  ', c: 'x y\nz' }],
    [
      'double-quote escapes',
      'a: "\\t\\n\\\\\\"\\/\\x41\\u00e9\\U0001F600\\0\\a\\b\\e\\f\\v\\r\\N\\_\\L\\P\\ "\n',
      {
        a: '\t\n\\"/Aé😀\0\x07\b\x1b\f\v\r\u0085\u00a0\u2028\u2029 ',
      },
    ],
    [
      'double-quote folding and escaped breaks',
      'a: "x\n  y\n\n  z"\nb: "ab\\\n   cd"\nc: "x \\\n  y"\n',
      {
        a: 'x y\nz',
        b: 'abcd',
        c: 'x y',
      },
    ],
    ['surrogate pair escapes', 'a: "\\uD83D\\uDE00"\n', { a: '😀' }],
    ['literal block', 'a: |\n  one\n  two\n', { a: 'one\ntwo\n' }],
    ['literal strip/keep', 'a: |-\n  x\n\nb: |+\n  x\n\n\nc: 1\n', { a: 'x', b: 'x\n\n\n', c: '1' }],
    ['folded block', 'a: >\n  a\n  b\n\n  c\n   d\n  e\n', { a: 'a b\nc\n d\ne\n' }],
    ['folded strip with leading empty line', 'a: >-\n\n  x\n\n  y\n\n', { a: '\nx\ny' }],
    ['explicit indentation indicator', 'a: |2\n   x\nb: |1-\n   y\n', { a: ' x\n', b: '  y' }],
    [
      'block scalar comment and more-indented lines',
      'a: | # c\n  x\n    y\n  # not a comment\n',
      {
        a: 'x\n  y\n# not a comment\n',
      },
    ],
    ['block scalar without a final newline', 'a: |\n  x', { a: 'x\n' }],
    ['empty block scalars', 'a: |\nb: |+\n\n\nc: >-\n', { a: '', b: '\n\n', c: '' }],
    ['block scalar in a list', '- |\n  x\n- >\n  y\n  z\n', ['x\n', 'y z\n']],
    ['document markers', '---\na: 1\n...\n# trailing\n', { a: '1' }],
    ['scalar after ---', '--- x\n', 'x'],
    ['BOM', '\ufeffa: 1\n', { a: '1' }],
    [
      'CRLF line endings',
      'a: 1\r\nb:\r\n  - x\r\n  - |\r\n    y\r\n    z\r\nc: "p\r\n  q"\r\n',
      {
        a: '1',
        b: ['x', 'y\nz\n'],
        c: 'p q',
      },
    ],
    ['a lone CR is text', 'a: x\ry\n', { a: 'x\ry' }],
    [
      'tabs as separation (not indentation)',
      'a:\tb\nc: d \t\ne:\n \tf\ng:\n-\tx\n',
      { a: 'b', c: 'd', e: 'f', g: ['x'] },
    ],
    [
      'whitespace-only lines with tabs between entries',
      'a:\n  b: 1\n \t\n  c: 2\n\t\nd: 3\n',
      { a: { b: '1', c: '2' }, d: '3' },
    ],
    ['top-level map indented', '  a: 1\n  b: 2\n', { a: '1', b: '2' }],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => {
      expect(value(text)).toEqual(expected);
      expect(differential(text)).toBe('both-ok');
    });
  }
});

describe('strict YAML parser: golden errors', () => {
  const cases: [string, string, number, string][] = [
    ['flow sequence', 'a: [x]\n', 3, MESSAGES.flowSeq],
    ['empty flow sequence', 'a: []\n', 3, MESSAGES.flowSeq],
    ['flow map', 'a: {b: c}\n', 3, MESSAGES.flowMap],
    ['empty flow map', 'a:\n  {}\n', 5, MESSAGES.flowMap],
    ['flow item', '- [a,\n   b]\n', 2, MESSAGES.flowSeq],
    ['anchor', 'd: &d\n  s: 1\n', 3, 'anchors (&d) are not allowed'],
    ['anchor on a scalar', 'd: &x v\n', 3, 'anchors (&x) are not allowed'],
    ['alias', 's: *a\n', 3, 'aliases (*a) are not allowed; repeat the value instead'],
    [
      'core tag',
      'k: !!str x\n',
      3,
      'tags (tag:yaml.org,2002:str) are not allowed; every value is text until the schema types it',
    ],
    ['local tag', 'k: !x y\n', 3, 'tags (!x) are not allowed'],
    ['duplicate key', 'a: 1\nb: 2\na: 3\n', 10, MESSAGES.duplicateKey],
    ['duplicate key, quoted', "a: 1\n'a': 2\n", 5, MESSAGES.duplicateKey],
    ['tab indentation', 'a:\n\tb: c\n', 3, MESSAGES.tabIndent],
    ['tab before a compact map', '-\ta: b\n', 2, MESSAGES.tabIndent],
    ['tab-only line where an empty value would be indented', 'a:\n\t\nb: 1\n', 3, MESSAGES.tabIndent],
    ['unterminated tab-only last line after an empty item', '-\n\t', 2, MESSAGES.tabIndent],
    ['complex key', '? a\n: b\n', 0, MESSAGES.complexKey],
    ['complex key as a value', 'a: ? x\n', 3, MESSAGES.complexKey],
    ['directive', '%YAML 1.2\n---\na: 1\n', 0, MESSAGES.directive],
    ['second document', 'a: 1\n---\nb: 2\n', 5, MESSAGES.secondDocument],
    ['content after ...', 'a: 1\n...\nb: 2\n', 9, MESSAGES.afterDocumentEnd],
    ['collection on the --- line', '--- a: b\n', 4, MESSAGES.collectionOnMarkerLine],
    ['misaligned key', 'a:\n    b: 1\n  c: 2\n', 14, MESSAGES.mapIndent],
    ['over-indented sibling', 'a: 1\n  b: 2\n', 7, MESSAGES.multilineColon],
    ['over-indented after a comment', 'a: b # c\n  d\n', 11, MESSAGES.mapIndent],
    ['over-indented key in a list item', '- a: 1\n    b: 2\n', 11, MESSAGES.multilineColon],
    ['misaligned list item', '- - b\n - c\n', 7, MESSAGES.seqIndent],
    ['content after a top-level list', '- a\nb: 1\n', 4, MESSAGES.unexpectedLine],
    ['text where a key belongs', 'a: 1\nb\n', 5, MESSAGES.expectedKey],
    ['list item at key indentation', 'a: 1\n- b\n', 5, MESSAGES.seqAtMapIndent],
    ['nested mapping on one line', 'a: b: c\n', 3, MESSAGES.nestedMapInline],
    ['list on the key line', 'a: - b\n', 3, MESSAGES.seqInline],
    ['empty key', ': v\n', 0, MESSAGES.emptyKey],
    ['multi-line quoted key', '"a\nb": c\n', 0, MESSAGES.multilineKey],
    ['reserved plain start', 'a: @x\n', 3, MESSAGES.plainStart('@')],
    ['backtick plain start', 'a: `x\n', 3, MESSAGES.plainStart('`')],
    ['comma plain start', 'a: ,x\n', 3, MESSAGES.plainStart(',')],
    ['percent plain start', 'a: %x\n', 3, MESSAGES.plainStart('%')],
    ['closing bracket', 'a: ]x\n', 3, MESSAGES.plainStart(']')],
    ['unterminated double quote', 'a: "x\n', 3, MESSAGES.missingQuote('"')],
    ['unterminated single quote', "a: 'x\n  y\n", 3, MESSAGES.missingQuote("'")],
    ['quoted continuation not indented', 'a: "x\ny"\n', 6, MESSAGES.quoteIndent],
    ['document marker inside quotes', 'a: "x\n---\n"\n', 6, MESSAGES.markerInQuote],
    ['text after a quoted value', "a: 'x' y\n", 7, MESSAGES.textAfterValue],
    ['comment glued to a quote', "a: 'x'#c\n", 6, MESSAGES.commentSpace],
    ['bad escape', 'a: "\\q"\n', 4, MESSAGES.badEscape('\\q')],
    ['bad hex escape', 'a: "\\xZZ"\n', 4, MESSAGES.badEscape('\\xZZ')],
    ['escape beyond Unicode', 'a: "\\U00110000"\n', 4, MESSAGES.badEscape('\\U00110000')],
    ['block header digit 0', 'a: |0\n  x\n', 4, MESSAGES.blockHeader],
    ['block header garbage', 'a: |x\n  x\n', 4, MESSAGES.blockHeader],
    ['block header comment without space', 'a: |#c\n  x\n', 4, MESSAGES.commentSpace],
    ['more-indented leading empty line', 'a: |\n    \n  x\n', 9, MESSAGES.blockLeadingIndent],
    ['tab in block scalar indentation', 'a: |\n  x\n\t\n', 9, MESSAGES.blockTabIndent],
    ['": " in a continuation line', 'a:\n  b\n  c: d\n', 9, MESSAGES.multilineColon],
  ];
  for (const [name, text, offset, message] of cases) {
    it(name, () => {
      const r = parseStrict(text);
      expect(r.errors.length, JSON.stringify(r)).toBeGreaterThan(0);
      expect(r.errors[0]!.message).toContain(message);
      expect(r.errors[0]!.offset).toBe(offset);
      expect(differential(text)).not.toBe('both-ok');
    });
  }

  it('reports every forbidden construct of a file, not just the first', () => {
    const r = parseStrict('a: &x 1\nb: [2]\nc: !!str 3\nd: *x\ne: {f: 1}\n');
    expect(r.errors.map((e) => e.message.split(' ')[0])).toEqual([
      'anchors',
      'flow',
      'tags',
      'aliases',
      'flow',
    ]);
  });

  it('positions empty values where yaml does', () => {
    const r = parseStrict('a:\nb:   # c\nc: x');
    const map = r.root as Extract<YNode, { kind: 'map' }>;
    expect(map.items.map((p) => p.value?.offset)).toEqual([2, 8, 15]);
    expect(map.items.map((p) => (p.value?.kind === 'scalar' ? p.value.style : ''))).toEqual([
      'empty',
      'empty',
      'plain',
    ]);
    expect(differential('a:\nb:   # c\nc: x')).toBe('both-ok');
  });
});

describe('strict YAML parser: documented differences from yaml', () => {
  const deliberate: [string, string][] = [
    ['complex key', '? a\n: b\n'],
    ['directive', '%YAML 1.2\n---\na: 1\n'],
    ['directive after the document end', 'a: 1\n...\n%YAML 1.2\n'],
    ['empty plain key', ': v\n'],
    ['a line starting with ":" (yaml: key "")', 'a: 0\n :\n'],
    ['a ":" line after a plain line (yaml: a key across lines)', 'N:\ng\n :\n'],
  ];
  for (const [name, text] of deliberate) {
    it(`rejects on purpose: ${name}`, () => {
      expect(oracle(text).ok).toBe(true);
      expect(parseStrict(text).errors.length).toBeGreaterThan(0);
      expect(differential(text)).toBe('deliberate');
    });
  }

  it('rejects a tab in the indentation of a block scalar line, which yaml sometimes reads as text', () => {
    const text = 'a:\n  n: |\n  \tx: 1\n';
    expect(oracle(text)).toMatchObject({ ok: true, value: { a: { n: '\t\n' }, x: '1' } });
    expect(parseStrict(text).errors).toEqual([{ offset: 12, message: MESSAGES.blockTabIndent }]);
    expect(differential(text)).toBe('yaml-bug');
  });

  it('rejects a document marker line inside a quoted value, which yaml reads as text', () => {
    // Found by the mutation property (CI seed -1027176678).
    const text =
      " # \n---\n'*aaaaaa':\n aaaaaaaaaa:\n   - 'aaaaaaaa'\naa :\n  A_A-A.A_-_a :\n     -\n        a_-a-: '|'\n" +
      "       # \n\n     - 'a0-a.:0a\n---\n       a00a\n       a:a\n       a:/:/0\n       aa::a''";
    expect(oracle(text).ok).toBe(true);
    expect(parseStrict(text).errors[0]?.message).toBe(MESSAGES.markerInQuote);
    expect(differential(text)).toBe('yaml-bug');
  });

  it('rejects unterminated quotes that yaml calls closed', () => {
    for (const text of ["a: 'x''", 'a: "x\\"', "a: '''\nb: y'\n"]) {
      expect(oracle(text).ok, text).toBe(true);
      expect(differential(text)).toBe('yaml-bug');
    }
  });

  it('accepts a comment line between a key and its value on the next line (yaml rejects it)', () => {
    const text = 'a:\n#c\n  5\nb: 1\n';
    expect(oracle(text).ok).toBe(false);
    expect(value(text)).toEqual({ a: '5', b: '1' });
    expect(differential(text)).toBe('yaml-bug');
  });

  it('rejects a mis-indented continuation that yaml accepts after a comment line', () => {
    const text = 'u:\n#c\n x\ny\n';
    expect(oracle(text)).toMatchObject({ ok: true, value: { u: 'x y' } });
    expect(oracle('u:\n x\ny\n').ok).toBe(false);
    expect(parseStrict(text).errors[0]?.message).toBe(MESSAGES.expectedKey);
    expect(differential(text)).toBe('yaml-bug');
  });

  it('does not continue a list item across a comment line onto a less indented line', () => {
    const text = '-\n#c\n  u\n-\n';
    expect(oracle(text)).toMatchObject({ ok: true, value: ['u -'] });
    expect(value(text)).toEqual(['u', '']);
    expect(differential(text)).toBe('yaml-bug');
  });

  it("rejects a stray ':' that yaml reads as an empty key", () => {
    expect(oracle('4: > :')).toMatchObject({ ok: true, value: { '4': '', '': '' } });
    expect(differential('4: > :')).toBe('deliberate');
  });

  it('accepts a BOM before indentation or a list (yaml rejects both)', () => {
    for (const text of ['\ufeff  a: 1\n  b: 2\n', '\ufeff- a\n- b\n']) {
      expect(oracle(text).ok, JSON.stringify(text)).toBe(false);
      expect(differential(text)).toBe('both-ok');
    }
    expect(value('\ufeff- a\n- b\n')).toEqual(['a', 'b']);
  });

  it('reads an empty document as null (yaml: the empty string for `---` alone)', () => {
    expect(oracle('---\n')).toMatchObject({ ok: true, value: '' });
    expect(parseStrict('---\n')).toEqual({ root: null, errors: [] });
  });
});

// ---------------------------------------------------------------------------------------------
// (b) generated documents

type Tree = { t: 'str'; v: string } | { t: 'map'; entries: [string, Tree][] } | { t: 'seq'; items: Tree[] };

const CHARS = [
  ...'abcdefghijklmnopqrstuvwxyzABCXYZ0123456789',
  ...'   ',
  ...':#-?,[]{}&*!|>\'"%@`\\/._=+~$()<',
  '\t',
  '\n',
  'é',
  'ü',
  '😀',
  '\u2028',
  '\x07',
];
const textArb = fc.oneof(
  fc.string({ unit: fc.constantFrom(...CHARS), maxLength: 24 }),
  fc
    .array(fc.stringMatching(/^[a-z][a-z0-9_.:#/-]{0,8}[a-z0-9]$/), { minLength: 1, maxLength: 6 })
    .map((w) => w.join(' ')),
  fc
    .array(fc.string({ unit: fc.constantFrom(...CHARS.filter((c) => c !== '\n')), maxLength: 12 }), {
      minLength: 2,
      maxLength: 5,
    })
    .map((l) => l.join('\n')),
);
const keyArb = fc.oneof(
  fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_.-]{0,10}$/),
  fc.string({ unit: fc.constantFrom(...CHARS.filter((c) => c !== '\n' && c !== '\u2028')), maxLength: 10 }),
);

const treeArb: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree; str: Tree; map: Tree; seq: Tree }>((tie) => ({
  node: fc.oneof({ maxDepth: 4, depthIdentifier: 'tree' }, tie('str'), tie('map'), tie('seq')),
  str: textArb.map((v): Tree => ({ t: 'str', v })),
  map: fc
    .uniqueArray(fc.tuple(keyArb, tie('node')), { minLength: 1, maxLength: 4, selector: (e) => e[0] })
    .map((entries): Tree => ({ t: 'map', entries })),
  seq: fc.array(tie('node'), { minLength: 1, maxLength: 4 }).map((items): Tree => ({ t: 'seq', items })),
})).node;
const docTreeArb = fc
  .uniqueArray(fc.tuple(keyArb, treeArb), { minLength: 1, maxLength: 5, selector: (e) => e[0] })
  .map((entries): Tree => ({ t: 'map', entries }));

/** A small deterministic PRNG (mulberry32) for formatting choices. */
function prng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % 0x7fffffff) % n;
  };
}

const PLAIN_FIRST_BAD = new Set([...'-?:,[]{}#&*!|>\'"%@`']);
function plainSafe(v: string): boolean {
  if (v === '' || /[\x00-\x1f\u2028\u2029]/.test(v) || v !== v.trim()) return false;
  if (PLAIN_FIRST_BAD.has(v[0]!)) return false;
  return !/: |:$| #|\t/.test(v);
}
const sanitize = (v: string) => v.replace(/[\x00-\x08\x0b-\x1f\u2028\u2029]/g, 'x');

function renderDoc(tree: Tree, seed: number): string {
  const r = prng(seed);
  const sp = (k: number) => ' '.repeat(k);
  const comment = () => `# ${['c', 'note: x', 'a # b', "it's", ''][r(5)]}`;
  const maybeComment = () => (r(6) === 0 ? `${sp(1 + r(2))}${comment()}` : '');

  /** A scalar starting on the current line; continuation lines indented past `n`. */
  function scalar(v: string, n: number, inlineKey: boolean): { first: string; rest: string[] } {
    const cont = () => sp(n + 1 + r(3));
    const styles: string[] = ['single', 'double', 'block'];
    if (plainSafe(v.replace(/\n/g, ' ')) || (plainSafe(v) && !v.includes('\n')))
      styles.push('plain', 'plain');
    if (v === '') styles.push('empty', 'empty');
    const style = styles[r(styles.length)]!;
    if (style === 'empty') return { first: inlineKey && r(2) === 0 ? '' : ['""', "''"][r(2)]!, rest: [] };
    if (style === 'plain') {
      const words = v.split(/([ \n])/);
      const lines: string[] = [''];
      for (let i = 0; i < words.length; i += 2) {
        const w = words[i]!;
        const sepBefore = i > 0 ? words[i - 1] : '';
        if (i > 0 && (sepBefore === '\n' || r(4) === 0)) {
          if (sepBefore === '\n') lines.push(r(2) ? '' : sp(r(n + 3)));
          lines.push(cont() + w);
        } else lines[lines.length - 1] += (i > 0 ? sepBefore : '') + w;
      }
      lines[lines.length - 1] += maybeComment();
      return { first: lines[0]!, rest: lines.slice(1) };
    }
    if (style === 'single' || style === 'double') {
      const q = style === 'single' ? "'" : '"';
      let body =
        style === 'single'
          ? sanitize(v).replace(/'/g, "''")
          : JSON.stringify(v)
              .slice(1, -1)
              .replace(/\\u00([0-9a-f]{2})/g, (m, h: string) => (r(2) ? m : `\\x${h}`));
      // Escaped line breaks inside double quotes.
      if (style === 'double' && r(3) === 0)
        body = body.replace(/ /g, () => (r(3) === 0 ? `\\\n${cont()} ` : ' '));
      const pieces = body.split(/(?<=\S) (?=\S)|\n/);
      if (pieces.length > 1 && (r(2) === 0 || body.includes('\n'))) {
        const lines = [q + pieces[0]!];
        for (let i = 1; i < pieces.length; i++) {
          if (r(4) === 0) lines.push(sp(r(n + 2)));
          lines.push(cont() + pieces[i]!);
        }
        lines[lines.length - 1] += q + maybeComment();
        return { first: lines[0]!, rest: lines.slice(1) };
      }
      return { first: q + body + q + maybeComment(), rest: [] };
    }
    // block scalar
    const indent = 1 + r(3);
    const lines = sanitize(v).split('\n');
    const needsIndicator = lines.some((l) => l.startsWith(' ') || l.trim() === '') || r(4) === 0;
    const chomp = ['', '-', '+'][r(3)]!;
    const header =
      (r(3) === 0 ? '>' : '|') +
      (needsIndicator ? (r(2) ? `${indent}${chomp}` : `${chomp}${indent}`) : chomp);
    const body = lines.map((l) => (l === '' && r(2) ? sp(r(indent + n + 1)) : sp(n + indent) + l));
    for (let k = r(3); k > 0 && r(2); k--) body.push(sp(r(n + indent + 1)));
    return { first: header + (r(5) === 0 ? ` ${comment()}` : ''), rest: body };
  }

  function keyText(k: string): string {
    if (plainSafe(k)) return k + sp(r(4) === 0 ? 1 : 0);
    if (r(2) === 0 || /[\x00-\x1f]/.test(k)) return JSON.stringify(k);
    return `'${k.replace(/'/g, "''")}'`;
  }

  function between(col: number): string[] {
    const out: string[] = [];
    if (r(5) === 0) out.push(sp(r(col + 3)) + comment());
    if (r(6) === 0) out.push(sp(r(3)));
    return out;
  }

  /** A node whose first line starts at column `col` (already placed); `n` is the parent indentation. */
  function node(t: Tree, n: number, col: number): { first: string; rest: string[] } {
    if (t.t === 'str') return scalar(t.v, n, false);
    if (t.t === 'map') return map(t.entries, col);
    return seq(t.items, col);
  }

  function map(entries: [string, Tree][], col: number): { first: string; rest: string[] } {
    const lines: string[] = [];
    entries.forEach(([k, v], i) => {
      const prefix = i === 0 ? '' : sp(col);
      const key = `${keyText(k)}:`;
      if (i > 0) lines.push(...between(col));
      if (v.t === 'str') {
        if (v.v === '' && r(3) === 0) {
          lines.push(prefix + key + maybeComment());
          return;
        }
        const s = scalar(v.v, col, true);
        const gap = s.first === '' ? '' : r(10) === 0 ? '\t' : sp(1 + r(3));
        lines.push(prefix + key + gap + s.first, ...s.rest);
        return;
      }
      lines.push(prefix + key + maybeComment(), ...between(col));
      const childCol = v.t === 'seq' && r(3) === 0 ? col : col + 1 + r(3);
      const child = node(v, col, childCol);
      lines.push(sp(childCol) + child.first, ...child.rest);
    });
    return { first: lines[0]!, rest: lines.slice(1) };
  }

  function seq(items: Tree[], col: number): { first: string; rest: string[] } {
    const lines: string[] = [];
    items.forEach((item, i) => {
      const prefix = i === 0 ? '' : sp(col);
      if (i > 0) lines.push(...between(col));
      if (item.t === 'str' && item.v === '' && r(2) === 0) {
        lines.push(`${prefix}-${maybeComment()}`);
        return;
      }
      if (item.t !== 'str' && r(4) === 0) {
        lines.push(`${prefix}-${maybeComment()}`);
        const childCol = col + 1 + r(3);
        const child = node(item, col, childCol);
        lines.push(sp(childCol) + child.first, ...child.rest);
        return;
      }
      const gap = 1 + (r(4) === 0 ? r(3) : 0);
      const child = node(item, col, col + 1 + gap);
      lines.push(`${prefix}-${sp(gap)}${child.first}`, ...child.rest);
    });
    return { first: lines[0]!, rest: lines.slice(1) };
  }

  const top = r(6) === 0 ? 1 + r(2) : 0;
  const body = map((tree as Extract<Tree, { t: 'map' }>).entries, top);
  const lines: string[] = [];
  if (r(4) === 0) lines.push(comment());
  if (r(3) === 0) lines.push(r(3) === 0 ? `--- ${comment()}` : '---');
  lines.push(sp(top) + body.first, ...body.rest);
  if (r(5) === 0) lines.push('...');
  if (r(4) === 0) lines.push(comment(), '');
  let text = lines.join('\n') + (r(5) === 0 ? '' : '\n');
  if (r(6) === 0) text = text.replace(/\n/g, '\r\n');
  if (r(10) === 0) text = `\ufeff${text}`;
  return text;
}

describe('strict YAML parser: differential property tests against yaml', () => {
  it('parses generated documents exactly like yaml (values and positions)', () => {
    const verdicts: Record<Verdict, number> = { 'both-ok': 0, 'both-error': 0, deliberate: 0, 'yaml-bug': 0 };
    fc.assert(
      fc.property(docTreeArb, fc.integer(), (tree, seed) => {
        verdicts[differential(renderDoc(tree, seed))]++;
      }),
      { numRuns: 4000 },
    );
    // The generator is meant to produce valid documents; most of them must be.
    expect(verdicts['both-ok']).toBeGreaterThan(3000);
  });

  const MUTATIONS = [
    ' ',
    '  ',
    '\n',
    '\t',
    ':',
    ': ',
    '- ',
    '-',
    '#',
    ' #',
    '"',
    "'",
    '|',
    '>',
    '\\',
    'x',
    '[',
    '&a ',
    '*a',
    '!t ',
    '---\n',
    '...',
    '? ',
    '%',
    '\r\n',
  ];
  it('agrees with yaml on mutated documents (accept/reject, values, positions), up to the documented differences', () => {
    const verdicts: Record<Verdict, number> = { 'both-ok': 0, 'both-error': 0, deliberate: 0, 'yaml-bug': 0 };
    fc.assert(
      fc.property(
        docTreeArb,
        fc.integer(),
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: MUTATIONS.length + 2 })), { minLength: 1, maxLength: 3 }),
        (tree, seed, mutations) => {
          let text = renderDoc(tree, seed).replace(/^\ufeff/, '');
          for (const [at, what] of mutations) {
            const i = text.length === 0 ? 0 : at % (text.length + 1);
            if (what === MUTATIONS.length) text = text.slice(0, i) + text.slice(i + 1);
            else if (what === MUTATIONS.length + 1) {
              // re-indent one line
              const ls = text.lastIndexOf('\n', i - 1) + 1;
              text = text.slice(0, ls) + ' ' + text.slice(ls);
            } else if (what === MUTATIONS.length + 2) {
              const ls = text.lastIndexOf('\n', i - 1) + 1;
              if (text[ls] === ' ') text = text.slice(0, ls) + text.slice(ls + 1);
            } else text = text.slice(0, i) + MUTATIONS[what] + text.slice(i);
          }
          verdicts[differential(text)]++;
        },
      ),
      { numRuns: 4000 },
    );
    expect(verdicts['both-error']).toBeGreaterThan(500);
    expect(verdicts['both-ok']).toBeGreaterThan(500);
  });

  it('maps offsets to lines and columns like yaml', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\r', 'é'), maxLength: 60 }),
        fc.nat(),
        (text, at) => {
          const counter = new LineCounter();
          parseDocument(text, { lineCounter: counter });
          const offset = at % (text.length + 1);
          expect(new LineIndex(text).pos(offset)).toEqual(counter.linePos(offset));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// (c) every YAML file in the repository, (d) positions of their nodes

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...yamlFiles(path));
    else if (/\.ya?ml$/.test(name)) out.push(path);
  }
  return out;
}

describe('strict YAML parser: repository files', () => {
  const root = join(import.meta.dirname, '..', '..');
  const files = [...yamlFiles(join(root, 'test', 'fixtures')), ...yamlFiles(join(root, 'example'))];

  it('finds the fixture and example files', () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
  });

  for (const file of files) {
    it(`parses ${file.slice(root.length + 1)} like yaml, node positions included`, () => {
      const text = readFileSync(file, 'utf8');
      expect(differential(text)).toBe('both-ok');
      // The same file with CRLF line endings and a BOM.
      expect(differential(`\ufeff${text.replace(/\n/g, '\r\n')}`)).toBe('both-ok');
    });
  }

  it('reports line and column like yaml for a sample of nodes', () => {
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const counter = new LineCounter();
      const doc = parseDocument(text, { schema: 'failsafe', lineCounter: counter });
      const index = new LineIndex(text);
      const mine: number[] = [];
      const theirs: number[] = [];
      const collect = (a: YNode | null, b: unknown) => {
        if (a === null || b === null || typeof b !== 'object') return;
        mine.push(a.offset);
        theirs.push((b as YamlNode).range?.[0] ?? -1);
        if (a.kind === 'map' && isMap(b))
          a.items.forEach((p, i) => {
            collect(p.key, b.items[i]?.key);
            collect(p.value, b.items[i]?.value);
          });
        if (a.kind === 'seq' && isSeq(b))
          a.items.forEach((it, i) => {
            collect(it, b.items[i]);
          });
      };
      collect(parseStrict(text).root, doc.contents);
      // Not vacuous: every file has a few nodes (the smallest, a one-job job-set-id vector, has 10).
      expect(mine.length).toBeGreaterThanOrEqual(10);
      const step = Math.max(1, Math.floor(mine.length / 200));
      for (let i = 0; i < mine.length; i += step)
        expect(index.pos(mine[i]!), `${file} node ${i}`).toEqual(counter.linePos(theirs[i]!));
    }
  });
});

describe('nesting cap', () => {
  const nestedSeq = (n: number) => `${'- '.repeat(n)}x\n`;
  const nestedMap = (n: number) =>
    `${Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')} v\n`;
  const depth = (node: YNode | null): number =>
    node?.kind === 'seq'
      ? 1 + depth(node.items[0] ?? null)
      : node?.kind === 'map'
        ? 1 + depth(node.items[0]!.value)
        : 0;

  it(`accepts ${MAX_NESTING} levels of lists or mappings`, () => {
    for (const text of [nestedSeq(MAX_NESTING), nestedMap(MAX_NESTING)]) {
      const { root, errors } = parseStrict(text);
      expect(errors).toEqual([]);
      expect(depth(root)).toBe(MAX_NESTING);
    }
  });

  it('rejects one level more at the collection that crosses the cap, and survives 100k levels', () => {
    const seq = parseStrict(nestedSeq(MAX_NESTING + 1));
    expect(seq.errors).toEqual([{ offset: 2 * MAX_NESTING, message: MESSAGES.tooDeep }]);
    const map = parseStrict(nestedMap(MAX_NESTING + 1));
    expect(map.errors).toHaveLength(1);
    expect(map.errors[0]!.message).toBe(MESSAGES.tooDeep);
    const huge = parseStrict(nestedSeq(100_000));
    expect(huge.errors).toEqual([{ offset: 2 * MAX_NESTING, message: MESSAGES.tooDeep }]);
    expect(huge.root).toBeNull();
  });
});
