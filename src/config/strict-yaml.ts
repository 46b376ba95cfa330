// A single-pass parser for the strict YAML dialect of spec 01 §1.6. Block mappings and lists,
// plain, quoted and block scalars, comments, one optional `---`/`...` document: everything else
// (flow collections, anchors, aliases, tags, complex keys, directives, duplicate keys) is an error.
// Every scalar is text. Values and node offsets equal what the `yaml` package (failsafe schema)
// gives for the same text, so `file:line:col` positions did not move when this replaced it;
// test/unit/strict-yaml.test.ts checks that against `yaml`, which is kept as a test oracle only.
//
// Accepted by `yaml`, rejected here on purpose (none can occur in a valid config):
// - `? key` complex keys and `%YAML`/`%TAG` directives (spec: strict dialect);
// - an empty plain key (`: value`, or a line starting with ':'), which `yaml` reads as the key '';
//   no schema has an empty key;
// - `yaml` bugs not reproduced: an unterminated quoted value that `yaml` calls closed because the
//   line (or input) it was cut at ends in an escaped quote (`a: 'x''`); a tab in the indentation
//   of a block scalar line, which `yaml` sometimes turns into content ('\t') and then reads the
//   rest of the line as a new top-level key.
// Rejected by `yaml`, accepted here (valid YAML 1.2): a BOM followed by indentation or '- ', and
// a comment line between `key:` and its plain value on a following line. More generally, a
// comment line never changes how a plain value continues here (`yaml` sometimes lets the value
// continue onto a line that is not indented enough, e.g. `u:\n#c\n x\ny` → 'x y'; an error here).
// Like `yaml` (stricter than YAML 1.2): a tab-only line where an empty value's indentation would
// be is tab indentation (checkTabAfterEmptyValue). An empty document, including one that is only
// `---`, has a null root (`yaml`: '').

export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal' | 'folded' | 'empty';

/** A scalar: its text, where the text (or its quote / block indicator) starts, and how it was written. */
export interface YScalar {
  kind: 'scalar';
  value: string;
  offset: number;
  /** `empty` is a missing value (`key:` or `-` with nothing after it); its value is ''. */
  style: ScalarStyle;
}
export interface YPair {
  key: YScalar;
  /** Never null from this parser: a missing value is an `empty` scalar (it has a position). */
  value: YNode | null;
}
/** A block mapping in document order; its offset is its first key's. */
export interface YMap {
  kind: 'map';
  items: YPair[];
  offset: number;
}
/** A block list; its offset is its first `-`. */
export interface YSeq {
  kind: 'seq';
  items: (YNode | null)[];
  offset: number;
}
export type YNode = YMap | YSeq | YScalar;

export interface StrictYamlError {
  offset: number;
  message: string;
}

export interface StrictYamlResult {
  /** null for an empty document (nothing, only comments, or only `---`). */
  root: YNode | null;
  errors: StrictYamlError[];
}

/** Offset → 1-based line/column, by binary search over the line starts. */
export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(text: string) {
    const starts = this.starts;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  }
  pos(offset: number): { line: number; col: number } {
    const starts = this.starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - starts[lo]! + 1 };
  }
}

/**
 * Deepest nesting of mappings and lists a document may have. Real configs stay under ten; the
 * cap turns a hostile or generated document into a located error instead of a stack overflow
 * here or in the recursive validators and merges downstream.
 */
export const MAX_NESTING = 64;

export const MESSAGES = {
  flowSeq: 'flow style [...] is not allowed; use block style (one item per line), or quote the text',
  flowMap: 'flow style {...} is not allowed; use block style (one item per line), or quote the text',
  anchor: (name: string) => `anchors (&${name}) are not allowed`,
  alias: (name: string) => `aliases (*${name}) are not allowed; repeat the value instead`,
  tag: (tag: string) => `tags (${tag}) are not allowed; every value is text until the schema types it`,
  duplicateKey: 'duplicate key in one mapping',
  tabIndent: 'tabs are not allowed as indentation; indent with spaces',
  blockTabIndent: 'tabs are not allowed as indentation, also in a block scalar (| or >); indent with spaces',
  complexKey: 'complex mapping keys (`? key`) are not allowed; write `key: value`',
  directive: 'directives (`%...`) are not allowed',
  secondDocument: "a second document ('---') is not allowed: one document per file",
  afterDocumentEnd: "content after the document end marker ('...') is not allowed: one document per file",
  collectionOnMarkerLine: "a mapping or list cannot start on the '---' line; start it on the next line",
  mapIndent: 'bad indentation: this line does not line up with the mapping keys above it',
  seqIndent: 'bad indentation: this line does not line up with the list items above it',
  unexpectedLine: 'unexpected content: this line does not fit the structure above it (check its indentation)',
  expectedKey: "expected a mapping key ('key: value') at this indentation",
  seqAtMapIndent:
    "a list item ('- ') is not allowed here: this line is at the indentation of the mapping keys above it",
  emptyKey: "a mapping key is missing before ':'",
  nestedMapInline:
    "a mapping cannot start on the same line as its key ('a: b: c'); put it on the next line, or quote the text",
  seqInline: "a list cannot start on the same line as its key ('a: - b'); put it on the next line",
  multilineColon:
    "unexpected ': ' in a multi-line plain value (implicit keys must be on one line); check the indentation, or quote the text",
  plainStart: (ch: string) => `a plain value cannot start with '${ch}'; quote the text`,
  missingQuote: (q: string) => `missing closing quote (${q})`,
  quoteIndent: 'bad indentation in a quoted value: its continuation lines must be indented more than its key',
  markerInQuote: "a document marker ('---' or '...') cannot appear inside a quoted value",
  multilineKey: 'a quoted mapping key must be on one line',
  textAfterValue: 'unexpected text after the value',
  commentSpace: 'a comment must be separated from the value by whitespace',
  blockHeader:
    'invalid block scalar header: expected | or > with an optional indentation digit (1-9) and chomping indicator (- or +)',
  blockLeadingIndent:
    'a block scalar whose leading empty lines are indented more than its first text line needs an explicit indentation indicator',
  badEscape: (raw: string) => `invalid escape sequence ${raw} in a double-quoted value`,
  tooDeep: `nesting too deep: more than ${MAX_NESTING} levels of mappings and lists`,
} as const;

const TAB = 9;
const LF = 10;
const CR = 13;
const SP = 32;
const BANG = 33;
const DQUOTE = 34;
const HASH = 35;
const PERCENT = 37;
const AMP = 38;
const SQUOTE = 39;
const STAR = 42;
const PLUS = 43;
const COMMA = 44;
const DASH = 45;
const DOT = 46;
const COLON = 58;
const GT = 62;
const QMARK = 63;
const AT = 64;
const LBRACKET = 91;
const BACKSLASH = 92;
const RBRACKET = 93;
const BACKTICK = 96;
const LBRACE = 123;
const PIPE = 124;
const RBRACE = 125;

// peekLine() results
const END = 0;
const CONTENT = 1;
const DOC_START = 2;
const DOC_END = 3;

// scanPlainLine() stop reasons
const STOP_EOL = 0;
const STOP_COMMENT = 1;
const STOP_COLON = 2;

// parseNode() flags
const COLLECTIONS = 1; // a block mapping / list may start here (own line, or after '- ')
const SAME_INDENT_SEQ = 2; // a value of a mapping key: a list may sit at the key's own indentation
const TAB_BEFORE = 4; // the separation before this node contained a tab

// findQuoteEnd() modes (other values are a parent indentation)
const ONE_LINE = -10;
const ANY_LINES = -11;

const DQ_ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  '\t': '\t',
};

/** Thrown for structural errors after which the rest of the document cannot be read reliably. */
class Stop extends Error {}

class Parser {
  private readonly s: string;
  private readonly n: number;
  readonly errors: StrictYamlError[] = [];
  /** The cursor. Between nodes it is at the start of a line. */
  private pos = 0;
  /** How many mappings and lists enclose the cursor. */
  private depth = 0;
  /** Start of the line the cursor is on (set by peekLine). */
  private ls = 0;
  /** Indentation (spaces) of the line found by peekLine. */
  private ind = 0;
  /** Where a tab follows that indentation on the line found by peekLine (-1: none). */
  private tab = -1;
  /** Where the content of the line found by peekLine starts (after spaces and tabs). */
  private content = 0;
  // scanPlainLine() results
  private scanEnd = 0;
  private scanStop = STOP_EOL;
  private scanAt = 0;

  constructor(text: string) {
    this.s = text;
    this.n = text.length;
  }

  // ---- errors ----

  private soft(offset: number, message: string): void {
    this.errors.push({ offset, message });
  }
  private hard(offset: number, message: string): never {
    this.errors.push({ offset, message });
    throw new Stop();
  }

  // ---- character helpers ----

  private code(i: number): number {
    return this.s.charCodeAt(i); // NaN past the end
  }
  /** A line break (LF or CRLF; like `yaml`, a lone CR is text) or the end of input starts at i. */
  private eolAt(i: number): boolean {
    if (i >= this.n) return true;
    const c = this.s.charCodeAt(i);
    return c === LF || (c === CR && this.s.charCodeAt(i + 1) === LF);
  }
  private wsOrEolAt(i: number): boolean {
    const c = this.s.charCodeAt(i);
    return c === SP || c === TAB || this.eolAt(i);
  }
  /** What may follow a ':' that ends a key (like `yaml`, a lone CR counts as a separator here). */
  private keySepAt(i: number): boolean {
    const c = this.s.charCodeAt(i);
    return c === SP || c === TAB || c === LF || c === CR || i >= this.n;
  }
  private skipWs(i: number): number {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c !== SP && c !== TAB) return i;
      i++;
    }
  }
  /** The start of the line after the one containing i (n at the end). */
  private nextLineStart(i: number): number {
    const nl = this.s.indexOf('\n', i);
    return nl === -1 ? this.n : nl + 1;
  }
  private isDocMarker(lineStart: number): boolean {
    const s = this.s;
    const c = s.charCodeAt(lineStart);
    if (c !== DASH && c !== DOT) return false;
    if (s.charCodeAt(lineStart + 1) !== c || s.charCodeAt(lineStart + 2) !== c) return false;
    const d = s.charCodeAt(lineStart + 3);
    return d === SP || d === TAB || d === LF || d === CR || lineStart + 3 >= this.n;
  }
  /** Finishes a line after a value: only whitespace and a comment may follow. */
  private finishLine(i: number): void {
    const j = this.skipWs(i);
    if (this.eolAt(j)) {
      this.pos = this.nextLineStart(j);
      return;
    }
    if (this.code(j) === HASH) {
      if (j === i) this.hard(j, MESSAGES.commentSpace);
      this.pos = this.nextLineStart(j);
      return;
    }
    this.hard(j, MESSAGES.textAfterValue);
  }

  /**
   * From a line start, skips blank and comment-only lines and classifies the next one; the cursor,
   * `ls` and `ind` are left on it. Tab-indented content is an error.
   */
  private peekLine(): number {
    const s = this.s;
    const n = this.n;
    let q = this.pos;
    while (q < n) {
      let i = q;
      while (s.charCodeAt(i) === SP) i++;
      const c = s.charCodeAt(i);
      if (this.eolAt(i) || c === HASH) {
        q = this.nextLineStart(i);
        continue;
      }
      let j = i;
      if (c === TAB) {
        j = this.skipWs(i);
        if (this.eolAt(j) || s.charCodeAt(j) === HASH) {
          q = this.nextLineStart(j);
          continue;
        }
        // Spaces then a tab may separate a scalar from its indentation; a tab alone never indents.
        if (i === q) this.hard(i, MESSAGES.tabIndent);
      }
      this.pos = q;
      this.ls = q;
      this.ind = i - q;
      this.tab = j === i ? -1 : i;
      this.content = j;
      if (i === q && this.isDocMarker(q)) return c === DASH ? DOC_START : DOC_END;
      const d = s.charCodeAt(j);
      if (d === COLON && this.keySepAt(j + 1)) this.hard(j, MESSAGES.emptyKey);
      return CONTENT;
    }
    this.pos = n;
    this.ls = n;
    this.ind = 0;
    this.tab = -1;
    this.content = n;
    return END;
  }

  // ---- document ----

  parseDocument(): YNode | null {
    const s = this.s;
    if (s.charCodeAt(0) === 0xfeff) this.pos = 1;
    let kind = this.peekLine();
    if (kind === CONTENT && this.ind === 0 && s.charCodeAt(this.pos) === PERCENT)
      this.hard(this.pos, MESSAGES.directive);
    let root: YNode | null = null;
    if (kind === DOC_START) {
      const after = this.skipWs(this.pos + 3);
      if (this.eolAt(after) || s.charCodeAt(after) === HASH) {
        const next = this.nextLineStart(after);
        this.pos = next;
        root = this.parseBlockNode(-1, 0);
        if (root === null) this.checkUnterminatedTab(next, -1);
      } else {
        this.pos = after;
        root = this.parseNode(-1, after - this.ls, 0);
      }
      kind = this.peekLine();
    } else if (kind === CONTENT) {
      root = this.parseBlockNode(-1, 0);
      kind = this.peekLine();
    }
    if (kind === DOC_END) {
      this.finishLine(this.pos + 3);
      const after = this.peekLine();
      if (after !== END) {
        const at = this.pos + this.ind;
        this.hard(
          at,
          this.ind === 0 && s.charCodeAt(at) === PERCENT ? MESSAGES.directive : MESSAGES.afterDocumentEnd,
        );
      }
    } else if (kind === DOC_START) {
      this.hard(this.pos, MESSAGES.secondDocument);
    } else if (kind === CONTENT) {
      this.unexpectedLine();
    }
    if (root !== null && root.kind === 'scalar' && root.style === 'empty') return null;
    return root;
  }

  /** A content line that no open block accepts. */
  private unexpectedLine(): never {
    this.hard(this.ls + this.ind, MESSAGES.unexpectedLine);
  }

  // ---- block structure ----

  /**
   * A node on the following lines, indented more than `parentIndent` (or a list at exactly that
   * indentation when `SAME_INDENT_SEQ`); null when there is none.
   */
  private parseBlockNode(parentIndent: number, flags: number): YNode | null {
    if (this.peekLine() !== CONTENT) return null;
    const ind = this.ind;
    const at = this.content;
    if (
      ind > parentIndent ||
      (flags & SAME_INDENT_SEQ &&
        ind === parentIndent &&
        this.tab < 0 &&
        this.code(at) === DASH &&
        this.keySepAt(at + 1))
    ) {
      this.pos = at;
      return this.parseNode(parentIndent, ind, this.tab < 0 ? COLLECTIONS : COLLECTIONS | TAB_BEFORE);
    }
    return null;
  }

  /** A node starting at the cursor (column `col`), inside a collection indented at `parentIndent`. */
  private parseNode(parentIndent: number, col: number, flags: number): YNode {
    const s = this.s;
    const p = this.pos;
    const c = s.charCodeAt(p);
    switch (c) {
      case DASH:
        if (this.keySepAt(p + 1)) {
          if (!(flags & COLLECTIONS))
            this.hard(p, parentIndent < 0 ? MESSAGES.collectionOnMarkerLine : MESSAGES.seqInline);
          if (flags & TAB_BEFORE) this.hard(p, MESSAGES.tabIndent);
          return this.parseSeq(col);
        }
        break;
      case QMARK:
        if (this.keySepAt(p + 1)) this.hard(p, MESSAGES.complexKey);
        break;
      case LBRACKET:
      case LBRACE:
        return this.skipFlow(p);
      case AMP:
      case BANG:
        return this.parseProperties(parentIndent, flags);
      case STAR: {
        const end = this.tokenEnd(p);
        this.soft(p, MESSAGES.alias(s.slice(p + 1, end)));
        this.finishLine(end);
        return emptyScalar(p);
      }
      case PIPE:
      case GT:
        return this.parseBlockScalar(parentIndent);
      case DQUOTE:
      case SQUOTE:
        return this.parseQuotedNode(parentIndent, col, flags);
      case COLON:
        if (this.keySepAt(p + 1)) this.hard(p, MESSAGES.emptyKey);
        break;
      case COMMA:
      case PERCENT:
      case AT:
      case BACKTICK:
      case RBRACKET:
      case RBRACE:
        this.hard(p, MESSAGES.plainStart(s[p]!));
    }
    this.scanPlainLine(p);
    if (this.scanStop === STOP_COLON) {
      if (!(flags & COLLECTIONS))
        this.hard(p, parentIndent < 0 ? MESSAGES.collectionOnMarkerLine : MESSAGES.nestedMapInline);
      if (flags & TAB_BEFORE) this.hard(p, MESSAGES.tabIndent);
      const key: YScalar = { kind: 'scalar', value: s.slice(p, this.scanEnd), offset: p, style: 'plain' };
      this.pos = this.scanAt + 1;
      return this.parseMap(col, key);
    }
    return this.parsePlain(parentIndent);
  }

  private enterCollection(offset: number): void {
    if (++this.depth > MAX_NESTING) this.hard(offset, MESSAGES.tooDeep);
  }

  /** A block mapping at column `col` whose first key was just read (cursor after its ':'). */
  private parseMap(col: number, firstKey: YScalar): YMap {
    this.enterCollection(firstKey.offset);
    try {
      return this.parseMapItems(col, firstKey);
    } finally {
      this.depth--;
    }
  }

  private parseMapItems(col: number, firstKey: YScalar): YMap {
    const items: YPair[] = [];
    const map: YMap = { kind: 'map', items, offset: firstKey.offset };
    let key = firstKey;
    let seen: Set<string> | null = null;
    for (;;) {
      // Duplicate keys: a linear scan is cheapest for the small maps configs are made of.
      if (items.length < 12) {
        for (let i = 0; i < items.length; i++)
          if (items[i]!.key.value === key.value) {
            this.soft(key.offset, MESSAGES.duplicateKey);
            break;
          }
      } else {
        if (seen === null) seen = new Set(items.map((it) => it.key.value));
        if (seen.has(key.value)) this.soft(key.offset, MESSAGES.duplicateKey);
        else seen.add(key.value);
      }
      items.push({ key, value: this.parseMapValue(col) });
      if (this.peekLine() !== CONTENT || this.ind < col) return map;
      if (this.ind > col) this.hard(this.ls + this.ind, MESSAGES.mapIndent);
      if (this.tab >= 0) this.hard(this.tab, MESSAGES.tabIndent);
      this.pos = this.ls + col;
      key = this.parseKey();
    }
  }

  /** The value after `key:` (cursor right after the ':'). */
  private parseMapValue(mapCol: number): YNode {
    const s = this.s;
    const colon = this.pos;
    const p = this.skipWs(colon);
    if (this.eolAt(p) || s.charCodeAt(p) === HASH) {
      const next = this.nextLineStart(p);
      this.pos = next;
      const node = this.parseBlockNode(mapCol, SAME_INDENT_SEQ);
      if (node !== null) return node;
      this.checkTabAfterEmptyValue(next, mapCol);
      return emptyScalar(p);
    }
    this.pos = p;
    let flags = SAME_INDENT_SEQ;
    for (let i = colon; i < p; i++) if (s.charCodeAt(i) === TAB) flags |= TAB_BEFORE;
    return this.parseNode(mapCol, p - this.ls, flags);
  }

  /**
   * Like `yaml` (and stricter than YAML 1.2): right after a key with an empty value (and any
   * comment lines indented past the key), a blank line whose tab sits where the value's
   * indentation would be is tab indentation when the next key of the same mapping follows.
   */
  private checkTabAfterEmptyValue(lineStart: number, mapCol: number): void {
    const s = this.s;
    const from = lineStart;
    let i = lineStart;
    for (;;) {
      while (s.charCodeAt(i) === SP) i++;
      // Comment lines indented past the key still belong to the (empty) value.
      if (s.charCodeAt(i) !== HASH || i - lineStart <= mapCol) break;
      lineStart = this.nextLineStart(i);
      i = lineStart;
    }
    if (i - lineStart <= mapCol && s.charCodeAt(i) === TAB) {
      const j = this.skipWs(i);
      if (this.eolAt(j) && this.pos < this.n && this.ind === mapCol) this.hard(i, MESSAGES.tabIndent);
    }
    this.checkUnterminatedTab(from, mapCol);
  }

  /**
   * Like `yaml`: when an empty node (`key:`, `-`, `---`) is followed by nothing but blank and
   * comment lines, an unterminated last line whose tab sits where the node's indentation would
   * be is tab indentation.
   */
  private checkUnterminatedTab(from: number, parentIndent: number): void {
    if (this.pos < this.n) return;
    const s = this.s;
    const last = s.lastIndexOf('\n') + 1;
    if (last < from) return;
    let i = last;
    while (s.charCodeAt(i) === SP) i++;
    if (i - last <= Math.max(parentIndent, 0) && s.charCodeAt(i) === TAB && this.skipWs(i) >= this.n)
      this.hard(i, MESSAGES.tabIndent);
  }

  /** A mapping key at the cursor; leaves the cursor after its ':'. */
  private parseKey(): YScalar {
    const s = this.s;
    let p = this.pos;
    for (;;) {
      const c = s.charCodeAt(p);
      if (c === AMP || c === BANG) {
        const end = this.tokenEnd(p);
        this.reportProperty(p, end);
        p = this.skipWs(end);
        continue;
      }
      if (c === DQUOTE || c === SQUOTE) {
        const close = this.findQuoteEnd(p, ONE_LINE);
        if (close < 0) this.hard(p, MESSAGES.multilineKey);
        const after = this.skipWs(close + 1);
        if (s.charCodeAt(after) !== COLON || !this.keySepAt(after + 1)) this.hard(p, MESSAGES.expectedKey);
        const key = this.quotedScalar(p, close);
        this.pos = after + 1;
        return key;
      }
      if (this.keySepAt(p + 1)) {
        if (c === DASH) this.hard(p, MESSAGES.seqAtMapIndent);
        if (c === QMARK) this.hard(p, MESSAGES.complexKey);
        if (c === COLON) this.hard(p, MESSAGES.emptyKey);
      }
      switch (c) {
        case LBRACKET:
          this.hard(p, MESSAGES.flowSeq);
          break;
        case LBRACE:
          this.hard(p, MESSAGES.flowMap);
          break;
        case STAR:
          this.hard(p, MESSAGES.alias(s.slice(p + 1, this.tokenEnd(p))));
          break;
        case PIPE:
        case GT:
          this.hard(p, MESSAGES.expectedKey);
          break;
        case COMMA:
        case PERCENT:
        case AT:
        case BACKTICK:
        case RBRACKET:
        case RBRACE:
          this.hard(p, MESSAGES.plainStart(s[p]!));
      }
      this.scanPlainLine(p);
      if (this.scanStop !== STOP_COLON) this.hard(p, MESSAGES.expectedKey);
      this.pos = this.scanAt + 1;
      return { kind: 'scalar', value: s.slice(p, this.scanEnd), offset: p, style: 'plain' };
    }
  }

  /** A block list at column `col` (cursor on its first '-'). */
  private parseSeq(col: number): YSeq {
    this.enterCollection(this.pos);
    try {
      return this.parseSeqItems(col);
    } finally {
      this.depth--;
    }
  }

  private parseSeqItems(col: number): YSeq {
    const s = this.s;
    const items: (YNode | null)[] = [];
    const seq: YSeq = { kind: 'seq', items, offset: this.pos };
    for (;;) {
      const dash = this.pos;
      const p = this.skipWs(dash + 1);
      if (this.eolAt(p) || s.charCodeAt(p) === HASH) {
        const next = this.nextLineStart(p);
        this.pos = next;
        const node = this.parseBlockNode(col, 0);
        if (node === null) this.checkUnterminatedTab(next, col);
        items.push(node ?? emptyScalar(p));
      } else {
        this.pos = p;
        let flags = COLLECTIONS;
        for (let i = dash + 1; i < p; i++) if (s.charCodeAt(i) === TAB) flags |= TAB_BEFORE;
        items.push(this.parseNode(col, p - this.ls, flags));
      }
      if (this.peekLine() !== CONTENT || this.ind < col) return seq;
      if (this.ind > col) this.hard(this.ls + this.ind, MESSAGES.seqIndent);
      if (this.tab >= 0) this.hard(this.tab, MESSAGES.tabIndent);
      const at = this.ls + col;
      if (s.charCodeAt(at) !== DASH || !this.keySepAt(at + 1)) return seq;
      this.pos = at;
    }
  }

  // ---- forbidden constructs ----

  /** End of an anchor/alias/tag token (the next whitespace or line break). */
  private tokenEnd(p: number): number {
    const s = this.s;
    let i = p + 1;
    for (;;) {
      if (i >= this.n) return i;
      const c = s.charCodeAt(i);
      if (c === SP || c === TAB || c === LF || c === CR) return i;
      if (c === COMMA || c === LBRACKET || c === RBRACKET || c === LBRACE || c === RBRACE) {
        if (s.charCodeAt(p) !== BANG) return i; // anchors and aliases end at flow indicators
      }
      i++;
    }
  }

  private reportProperty(p: number, end: number): void {
    const s = this.s;
    const text = s.slice(p, end);
    if (s.charCodeAt(p) === AMP) {
      this.soft(p, MESSAGES.anchor(text.slice(1)));
      return;
    }
    let tag = text;
    if (text.startsWith('!!')) tag = `tag:yaml.org,2002:${text.slice(2)}`;
    else if (text.startsWith('!<') && text.endsWith('>')) tag = text.slice(2, -1);
    this.soft(p, MESSAGES.tag(tag));
  }

  /** Anchors and tags before a node: reported, then the node itself is read. */
  private parseProperties(parentIndent: number, flags: number): YNode {
    const s = this.s;
    let p = this.pos;
    for (;;) {
      const c = s.charCodeAt(p);
      if (c !== AMP && c !== BANG) break;
      const end = this.tokenEnd(p);
      this.reportProperty(p, end);
      p = this.skipWs(end);
    }
    if (this.eolAt(p) || s.charCodeAt(p) === HASH) {
      this.pos = this.nextLineStart(p);
      return (
        this.parseBlockNode(parentIndent, flags & SAME_INDENT_SEQ ? SAME_INDENT_SEQ : 0) ?? emptyScalar(p)
      );
    }
    this.pos = p;
    return this.parseNode(parentIndent, p - this.ls, flags);
  }

  /** A flow collection: reported, skipped (it may span lines), and read as an empty value. */
  private skipFlow(p: number): YScalar {
    const s = this.s;
    const n = this.n;
    this.soft(p, s.charCodeAt(p) === LBRACKET ? MESSAGES.flowSeq : MESSAGES.flowMap);
    let depth = 0;
    let i = p;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === LBRACKET || c === LBRACE) depth++;
      else if (c === RBRACKET || c === RBRACE) {
        depth--;
        if (depth === 0) {
          i++;
          break;
        }
      } else if (c === DQUOTE || c === SQUOTE) {
        const close = this.findQuoteEnd(i, ANY_LINES);
        if (close < 0) throw new Stop();
        i = close;
      } else if (c === HASH && i > p) {
        const b = s.charCodeAt(i - 1);
        if (b === SP || b === TAB) i = this.nextLineStart(i) - 1;
      }
      i++;
    }
    if (depth > 0) throw new Stop(); // unterminated: the flow error already explains it
    const after = this.skipWs(i);
    if (s.charCodeAt(after) === COLON && this.keySepAt(after + 1)) throw new Stop(); // a flow key
    this.finishLine(i);
    return emptyScalar(p);
  }

  // ---- plain scalars ----

  /**
   * Scans one line of plain text from p: sets scanEnd (end of the text without trailing
   * whitespace), scanStop (line end, comment, or a ': ' key indicator) and scanAt (where it stopped).
   */
  private scanPlainLine(p: number): void {
    const s = this.s;
    const n = this.n;
    let end = p;
    let i = p;
    for (;;) {
      if (i >= n) {
        this.scanStop = STOP_EOL;
        break;
      }
      const c = s.charCodeAt(i);
      if (c === LF) {
        this.scanStop = STOP_EOL;
        break;
      }
      if (c === SP || c === TAB) {
        i++;
        continue;
      }
      if (c === CR && s.charCodeAt(i + 1) === LF) {
        this.scanStop = STOP_EOL;
        break;
      }
      if (c === HASH && i > p) {
        const b = s.charCodeAt(i - 1);
        if (b === SP || b === TAB) {
          this.scanStop = STOP_COMMENT;
          break;
        }
        if (b === CR) this.hard(i, MESSAGES.commentSpace); // as `yaml` reads a lone CR before '#'
      }
      if (c === COLON) {
        const d = s.charCodeAt(i + 1);
        if (d === SP || d === TAB || d === LF || d === CR || i + 1 >= n) {
          this.scanStop = STOP_COLON;
          break;
        }
      }
      i++;
      end = i;
    }
    this.scanEnd = end;
    this.scanAt = i;
  }

  /** A plain scalar whose first line was just scanned; continuation lines fold per YAML 1.2. */
  private parsePlain(parentIndent: number): YScalar {
    const s = this.s;
    const n = this.n;
    const start = this.pos;
    let value = s.slice(start, this.scanEnd);
    if (this.scanStop === STOP_COMMENT) {
      this.pos = this.nextLineStart(this.scanAt);
      return { kind: 'scalar', value, offset: start, style: 'plain' };
    }
    let next = this.nextLineStart(this.scanAt); // the line after the last text line
    let q = next;
    let breaks = 0;
    while (q < n) {
      let i = q;
      while (s.charCodeAt(i) === SP) i++;
      const sp = i - q;
      let c = s.charCodeAt(i);
      if (this.eolAt(i)) {
        breaks++;
        q = this.nextLineStart(i);
        continue;
      }
      if (c === TAB) {
        if (sp <= parentIndent) break; // a tab where indentation is expected ends the scalar
        i = this.skipWs(i);
        if (this.eolAt(i)) {
          breaks++;
          q = this.nextLineStart(i);
          continue;
        }
        c = s.charCodeAt(i);
      }
      if (sp <= parentIndent || c === HASH || (sp === 0 && this.isDocMarker(q))) break;
      this.scanPlainLine(i);
      if (this.scanStop === STOP_COLON)
        this.hard(i, this.scanAt === i ? MESSAGES.emptyKey : MESSAGES.multilineColon);
      value += breaks === 0 ? ' ' : '\n'.repeat(breaks);
      value += s.slice(i, this.scanEnd);
      breaks = 0;
      next = this.nextLineStart(this.scanAt);
      if (this.scanStop === STOP_COMMENT) break;
      q = next;
    }
    this.pos = next;
    return { kind: 'scalar', value, offset: start, style: 'plain' };
  }

  // ---- quoted scalars ----

  /**
   * The closing quote of the quoted scalar opening at p, or -1 when there is none. `parentIndent`
   * >= -1: the scalar may span lines, each continuation line indented more than `parentIndent`;
   * ONE_LINE: it must close on its own line (keys); ANY_LINES: no checks (skipping flow collections).
   */
  private findQuoteEnd(p: number, parentIndent: number): number {
    const s = this.s;
    const n = this.n;
    const q = s.charCodeAt(p);
    let i = p + 1;
    for (;;) {
      if (i >= n) return -1;
      const c = s.charCodeAt(i);
      if (c === q) {
        if (q === SQUOTE && s.charCodeAt(i + 1) === SQUOTE) {
          i += 2;
          continue;
        }
        return i;
      }
      if (c === BACKSLASH && q === DQUOTE) {
        const d = s.charCodeAt(i + 1);
        if (d !== LF && d !== CR) {
          i += 2;
          continue;
        }
      } else if (c === LF) {
        if (parentIndent === ONE_LINE) return -1;
        if (parentIndent !== ANY_LINES) this.checkQuotedLine(i + 1, parentIndent);
      }
      i++;
    }
  }

  /** A continuation line of a multi-line quoted scalar must be indented past its parent. */
  private checkQuotedLine(lineStart: number, parentIndent: number): void {
    const s = this.s;
    let i = lineStart;
    while (s.charCodeAt(i) === SP) i++;
    const sp = i - lineStart;
    if (sp === 0 && this.isDocMarker(lineStart)) this.hard(lineStart, MESSAGES.markerInQuote);
    if (sp > parentIndent || i >= this.n) return;
    if (s.charCodeAt(i) === TAB) this.hard(i, MESSAGES.tabIndent);
    if (!this.eolAt(i)) this.hard(i, MESSAGES.quoteIndent);
  }

  /** A quoted scalar at the cursor: a value, or the first key of a block mapping. */
  private parseQuotedNode(parentIndent: number, col: number, flags: number): YNode {
    const s = this.s;
    const p = this.pos;
    const close = this.findQuoteEnd(p, parentIndent);
    if (close < 0) this.hard(p, MESSAGES.missingQuote(s[p]!));
    const after = this.skipWs(close + 1);
    if (s.charCodeAt(after) === COLON && this.keySepAt(after + 1)) {
      if (!(flags & COLLECTIONS))
        this.hard(p, parentIndent < 0 ? MESSAGES.collectionOnMarkerLine : MESSAGES.nestedMapInline);
      if (s.lastIndexOf('\n', close) >= p) this.hard(p, MESSAGES.multilineKey);
      if (flags & TAB_BEFORE) this.hard(p, MESSAGES.tabIndent);
      const key = this.quotedScalar(p, close);
      this.pos = after + 1;
      return this.parseMap(col, key);
    }
    const node = this.quotedScalar(p, close);
    this.finishLine(close + 1);
    return node;
  }

  private quotedScalar(p: number, close: number): YScalar {
    if (this.s.charCodeAt(p) === SQUOTE)
      return { kind: 'scalar', value: this.singleQuotedValue(p, close), offset: p, style: 'single' };
    return { kind: 'scalar', value: this.doubleQuotedValue(p, close), offset: p, style: 'double' };
  }

  private singleQuotedValue(p: number, close: number): string {
    const raw = this.s.slice(p + 1, close);
    const folded = raw.includes('\n') ? foldLines(raw) : raw;
    return folded.includes("''") ? folded.replaceAll("''", "'") : folded;
  }

  /** The same rules as `yaml`'s double-quoted resolver (folding, escapes, trimming). */
  private doubleQuotedValue(p: number, close: number): string {
    const s = this.s;
    let plainRun = true;
    for (let i = p + 1; i < close; i++) {
      const c = s.charCodeAt(i);
      if (c === BACKSLASH || c === LF) {
        plainRun = false;
        break;
      }
    }
    if (plainRun) return s.slice(p + 1, close);
    let res = '';
    for (let i = p + 1; i < close; i++) {
      const ch = s[i]!;
      if (ch === '\r' && s[i + 1] === '\n') continue;
      if (ch === '\n') {
        let fold = '';
        let next = s[i + 1];
        while (next === ' ' || next === '\t' || next === '\n' || next === '\r') {
          if (next === '\r' && s[i + 2] !== '\n') break;
          if (next === '\n') fold += '\n';
          i++;
          next = s[i + 1];
        }
        res += fold === '' ? ' ' : fold;
      } else if (ch === '\\') {
        const next = s[++i]!;
        const esc = DQ_ESCAPES[next];
        if (esc !== undefined) res += esc;
        else if (next === '\n' || (next === '\r' && s[i + 1] === '\n')) {
          if (next === '\r') i++;
          while (s[i + 1] === ' ' || s[i + 1] === '\t') i++;
        } else if (next === 'x' || next === 'u' || next === 'U') {
          const len = next === 'x' ? 2 : next === 'u' ? 4 : 8;
          const hex = s.slice(i + 1, i + 1 + len);
          const code = hex.length === len && /^[0-9a-fA-F]+$/.test(hex) ? Number.parseInt(hex, 16) : -1;
          if (code < 0 || code > 0x10ffff) {
            this.soft(i - 1, MESSAGES.badEscape(s.slice(i - 1, i + 1 + len)));
          } else res += String.fromCodePoint(code);
          i += len;
        } else {
          this.soft(i - 1, MESSAGES.badEscape(s.slice(i - 1, i + 1)));
          res += s.slice(i - 1, i + 1);
        }
      } else if (ch === ' ' || ch === '\t') {
        const wsStart = i;
        let next = s[i + 1];
        while (next === ' ' || next === '\t') next = s[++i + 1];
        if (next !== '\n' && !(next === '\r' && s[i + 2] === '\n')) res += s.slice(wsStart, i + 1);
      } else res += ch;
    }
    return res;
  }

  // ---- block scalars ----

  private parseBlockScalar(parentIndent: number): YScalar {
    const s = this.s;
    const n = this.n;
    const start = this.pos;
    const folded = s.charCodeAt(start) === GT;
    let chomp = 0; // 0 clip, DASH strip, PLUS keep
    let explicit = 0;
    let i = start + 1;
    for (;;) {
      const c = s.charCodeAt(i);
      if (chomp === 0 && (c === DASH || c === PLUS)) chomp = c;
      else if (explicit === 0 && c >= 49 && c <= 57) explicit = c - 48;
      else break;
      i++;
    }
    if (!this.wsOrEolAt(i) && s.charCodeAt(i) !== HASH) this.hard(i, MESSAGES.blockHeader);
    if (s.charCodeAt(i) === HASH) this.hard(i, MESSAGES.commentSpace);
    const j = this.skipWs(i);
    if (!this.eolAt(j) && s.charCodeAt(j) !== HASH) this.hard(j, MESSAGES.blockHeader);
    const bodyStart = this.nextLineStart(j);

    // The lines of the scalar: [line start, indentation, content start, content end (no CR)].
    const base = Math.max(parentIndent, 0);
    let indent = explicit > 0 ? base + explicit : -1;
    const lines: number[] = [];
    let maxLeadingBlank = 0;
    let maxLeadingBlankAt = 0;
    let firstContentLine = -1;
    let q = bodyStart;
    let end = bodyStart; // where the scalar's text ends (start of the line that ends it)
    while (q < n) {
      let k = q;
      while (s.charCodeAt(k) === SP) k++;
      const sp = k - q;
      const lineEnd = s.indexOf('\n', k);
      const eol = lineEnd === -1 ? n : lineEnd;
      const contentEnd = eol > k && s.charCodeAt(eol - 1) === CR ? eol - 1 : eol;
      const blank = k >= contentEnd;
      // Like `yaml`: a last line of spaces and a lone CR that is not indented past the text is no
      // empty line of the scalar but stray text after it.
      if (blank && lineEnd === -1 && k < n) {
        const first = firstContentLine < 0 ? -1 : lines[4 * firstContentLine + 1]!;
        const keep = chomp === PLUS;
        const stray =
          first < 0 ? sp <= parentIndent || (!keep && q !== bodyStart) : keep ? sp < first : sp <= first;
        if (stray) this.hard(q, MESSAGES.unexpectedLine);
      }
      if (blank) {
        if (indent < 0 && sp > maxLeadingBlank) {
          maxLeadingBlank = sp;
          maxLeadingBlankAt = k;
        }
      } else {
        if (indent < 0) {
          if (sp <= parentIndent) {
            if (s.charCodeAt(k) === TAB) this.hard(k, MESSAGES.blockTabIndent);
            break;
          }
          if (sp === 0 && this.isDocMarker(q)) break;
          indent = sp;
          if (maxLeadingBlank > indent) this.hard(maxLeadingBlankAt, MESSAGES.blockLeadingIndent);
        }
        if (sp < indent) {
          if (s.charCodeAt(k) === TAB) this.hard(k, MESSAGES.blockTabIndent);
          break;
        }
        if (sp === 0 && this.isDocMarker(q)) break;
        if (firstContentLine < 0) firstContentLine = lines.length >> 2;
      }
      lines.push(q, sp, k, contentEnd);
      q = lineEnd === -1 ? n : lineEnd + 1;
      end = q;
    }
    this.pos = end;
    const style = folded ? 'folded' : 'literal';
    const count = lines.length >> 2;
    if (firstContentLine < 0) {
      // Only empty lines: `keep` keeps their line breaks.
      let value = '';
      if (chomp === PLUS && end > bodyStart) {
        let breaks = 0;
        for (let x = bodyStart; x < end; x++) if (s.charCodeAt(x) === LF) breaks++;
        // Like `yaml`: a lone last line of spaces counts when it reaches the content indentation.
        if (breaks === 0) breaks = end - bodyStart >= (explicit > 0 ? indent : parentIndent + 1) ? 1 : 0;
        value = '\n'.repeat(breaks);
      }
      return { kind: 'scalar', value, offset: start, style };
    }
    const trim = indent;
    // Content ends after the last non-empty line, or after a trailing empty line with extra spaces.
    let chompStart = count;
    for (let l = count - 1; l >= 0; l--) {
      if (lines[4 * l + 2]! < lines[4 * l + 3]!) break;
      chompStart = l;
    }
    // (Like `yaml`: without `keep`, trailing empty lines not indented past the first text line go.)
    const firstIndent = lines[4 * firstContentLine + 1]!;
    const moreIndented = chomp === PLUS ? trim : Math.max(trim, firstIndent);
    for (let l = count - 1; l >= chompStart; l--) {
      if (lines[4 * l + 1]! > moreIndented) {
        chompStart = l + 1;
        break;
      }
    }
    let value = '';
    for (let l = 0; l < firstContentLine; l++) {
      const ls = lines[4 * l]!;
      value += s.slice(ls + Math.min(trim, lines[4 * l + 1]!), lines[4 * l + 3]!) + '\n';
    }
    let sep = '';
    let prevMore = false;
    for (let l = firstContentLine; l < chompStart; l++) {
      const ls = lines[4 * l]!;
      const sp = lines[4 * l + 1]!;
      const k = lines[4 * l + 2]!;
      const ce = lines[4 * l + 3]!;
      const text = s.slice(ls + Math.min(trim, sp), ce);
      if (!folded) {
        value += sep + text;
        sep = '\n';
      } else if (sp > trim || (k < ce && s.charCodeAt(k) === TAB)) {
        if (sep === ' ') sep = '\n';
        else if (!prevMore && sep === '\n') sep = '\n\n';
        value += sep + text;
        sep = '\n';
        prevMore = true;
      } else if (k >= ce) {
        if (sep === '\n') value += '\n';
        else sep = '\n';
      } else {
        value += sep + text;
        sep = ' ';
        prevMore = false;
      }
    }
    if (chomp === PLUS) {
      // Every line break after the content is kept.
      let breaks = 0;
      for (let x = lines[4 * (chompStart - 1)]!; x < end; x++) if (s.charCodeAt(x) === LF) breaks++;
      value += '\n'.repeat(breaks);
      if (!value.endsWith('\n')) value += '\n';
    } else if (chomp === 0) value += '\n';
    return { kind: 'scalar', value, offset: start, style };
  }
}

function emptyScalar(offset: number): YScalar {
  return { kind: 'scalar', value: '', offset, style: 'empty' };
}

/** Line folding of multi-line single-quoted text, exactly as `yaml` does it. */
function foldLines(source: string): string {
  const first = /(.*?)(?<![ \t])[ \t]*\r?\n/sy;
  const line = /[ \t]*(.*?)(?:(?<![ \t])[ \t]*)?\r?\n/sy;
  let match = first.exec(source);
  if (!match) return source;
  let res = match[1]!;
  let sep = ' ';
  let pos = first.lastIndex;
  line.lastIndex = pos;
  for (match = line.exec(source); match; match = line.exec(source)) {
    if (match[1] === '') {
      if (sep === '\n') res += sep;
      else sep = '\n';
    } else {
      res += sep + match[1];
      sep = ' ';
    }
    pos = line.lastIndex;
  }
  const last = /[ \t]*(.*)/sy;
  last.lastIndex = pos;
  match = last.exec(source);
  return res + sep + (match?.[1] ?? '');
}

/** Parses one document of the strict dialect. Errors carry offsets; the root is null when empty. */
export function parseStrict(text: string): StrictYamlResult {
  const parser = new Parser(text);
  let root: YNode | null = null;
  try {
    root = parser.parseDocument();
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    root = null;
  }
  return { root, errors: parser.errors };
}
