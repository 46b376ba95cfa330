// One error-to-text helper (`errorText`, src/util/errors.ts), and a scan of src/ that fails when a copy
// of the idiom it replaced appears anywhere else. The idioms it looks for, one regular expression each:
//   1. a thrown value cast to Error to read its text:        (e as Error).message, (err as Error)?.stack
//   2. an instanceof ternary that picks the message:          e instanceof Error ? e.message : ...
//   3. a message (or stack) with a String() fallback:          err?.message ?? String(e)
//   4. a message that falls back to the error's name:          err.message || err.name
// Reading a field called `message` off a parsed body (an API's `{ error, message }`) matches none of them.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorText } from '../../src/util/errors.ts';

const root = join(import.meta.dirname, '..', '..');
const IDIOMS: readonly RegExp[] = [
  /\(\s*[\w$]+\s+as\s+Error\s*\)\s*\??\.\s*(?:message|stack)\b/,
  /\binstanceof\s+Error\s*\?\s*[\w$.]+\.(?:message|stack)\b/,
  /\.(?:message|stack)\s*\?\?\s*String\(/,
  /\.message\s*\|\|\s*[\w$.]+\.name\b/,
];
/** The helper itself, and files generated from other sources. */
const EXEMPT = new Set(['src/util/errors.ts', 'src/store/migrations.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : sources(path);
    return /\.(ts|tsx|mts)$/.test(e.name) ? [path] : [];
  });
}

describe('errorText', () => {
  it("gives an Error's message, its name when the message is empty, else the value's string form", () => {
    expect(errorText(new Error('disk full'))).toBe('disk full');
    expect(errorText(new TypeError(''))).toBe('TypeError');
    expect(errorText('plain text')).toBe('plain text');
    expect(errorText(42)).toBe('42');
    expect(errorText(null)).toBe('null');
    expect(errorText(undefined)).toBe('undefined');
    expect(errorText({ message: 'from a worker' })).toBe('from a worker');
    expect(errorText({ message: 7 })).toBe('[object Object]');
  });

  it('gives the stack when asked, where there is one', () => {
    const e = new Error('boom');
    expect(errorText(e, { stack: true })).toBe(e.stack);
    expect(errorText(e, { stack: true })).toMatch(/^Error: boom\n\s+at /);
    expect(errorText('no stack here', { stack: true })).toBe('no stack here');
  });

  it('leads with the error code when asked and the message does not name it', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(errorText(reset, { code: true })).toBe('ECONNRESET: socket hang up');
    expect(errorText(reset)).toBe('socket hang up');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(errorText(refused, { code: true })).toBe('connect ECONNREFUSED 127.0.0.1:1');
  });
});

describe('no copy of the error-to-text idiom under src/', () => {
  it('the scan recognises each idiom it forbids, and not a parsed body’s message field', () => {
    const copies = [
      'const why = (e as Error)?.message ?? String(e);',
      'log(`failed: ${(err as Error).message}`);',
      'crash: (e as Error)?.stack ?? e,',
      'setError(err instanceof Error ? err.message : String(err));',
      'return e.message ?? String(err);',
      'if (err instanceof Error) return err.message || err.name;',
    ];
    for (const line of copies)
      expect(
        IDIOMS.some((re) => re.test(line)),
        line,
      ).toBe(true);
    for (const line of ['const m = o.message ?? o.error;', 'const text = errorText(e, { stack: true });'])
      expect(
        IDIOMS.some((re) => re.test(line)),
        line,
      ).toBe(false);
  });

  it('finds none outside src/util/errors.ts', () => {
    const found: string[] = [];
    const files = sources(join(root, 'src'));
    expect(files.length).toBeGreaterThan(300);
    for (const file of files) {
      const rel = relative(root, file).split('\\').join('/');
      if (EXEMPT.has(rel)) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (IDIOMS.some((re) => re.test(line))) found.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found, 'use errorText from src/util/errors.ts').toEqual([]);
  });
});
