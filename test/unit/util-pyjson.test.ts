// The one Python-compatible JSON encoder (src/util/pyjson.ts) and its option combinations; the
// presets are tested where they are used (report-template: tojson, jobapi: CLI output/bodies).
import { describe, expect, it } from 'vitest';
import { JsonEncodeError, pyJsonDumps, pyJsonNumber } from '../../src/util/pyjson.ts';

describe('pyJsonDumps', () => {
  it('writes numbers as Python does, non-finite ones as its tokens and bigints exactly', () => {
    expect([0, -0, 7, -3, 2.5, 1e16, 1e-5, 0.1, 2 ** 53].map(pyJsonNumber)).toEqual([
      '0',
      '0',
      '7',
      '-3',
      '2.5',
      '1e+16',
      '1e-05',
      '0.1',
      '9007199254740992.0',
    ]);
    expect(pyJsonDumps([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2n ** 70n])).toBe(
      '[NaN, Infinity, -Infinity, 1180591620717411303424]',
    );
  });

  it('escapes HTML-significant characters only when asked', () => {
    expect(pyJsonDumps("<a href='x'>&</a>")).toBe(`"<a href='x'>&</a>"`);
    expect(pyJsonDumps("<a href='x'>&</a>", { htmlSafe: true })).toBe(
      '"\\u003ca href=\\u0027x\\u0027\\u003e\\u0026\\u003c/a\\u003e"',
    );
    expect(pyJsonDumps({ 'é<': 1 }, { htmlSafe: true })).toBe('{"\\u00e9\\u003c": 1}');
  });

  it('keeps insertion order unless sort_keys, at every depth', () => {
    const v = { b: { z: 1, y: 2 }, a: [{ d: 1, c: 2 }] };
    expect(pyJsonDumps(v)).toBe('{"b": {"z": 1, "y": 2}, "a": [{"d": 1, "c": 2}]}');
    expect(pyJsonDumps(v, { sortKeys: true })).toBe('{"a": [{"c": 2, "d": 1}], "b": {"y": 2, "z": 1}}');
  });

  it('indents with a count or a string, empty containers staying inline', () => {
    expect(pyJsonDumps({ a: [], b: {}, c: [1] }, { indent: '\t' })).toBe(
      '{\n\t"a": [],\n\t"b": {},\n\t"c": [\n\t\t1\n\t]\n}',
    );
    expect(pyJsonDumps([1, 2], { indent: 0 })).toBe('[\n1,\n2\n]');
    expect(pyJsonDumps([1, 2], { indent: null })).toBe('[1, 2]');
  });

  it('writes compact bodies with non-ASCII text as is', () => {
    expect(pyJsonDumps({ s: 'é😀\n', n: [1, Number.NaN] }, { compact: true })).toBe(
      '{"s":"é😀\\n","n":[1,NaN]}',
    );
  });

  it('treats undefined as JS data by default and as an error on request', () => {
    expect(pyJsonDumps({ a: undefined, b: [undefined, 1] })).toBe('{"b": [null, 1]}');
    expect(pyJsonDumps(undefined)).toBe('null');
    expect(() => pyJsonDumps({ a: undefined }, { undefinedValues: 'error' })).toThrow(
      'Object of type Undefined is not JSON serializable',
    );
    expect(() => pyJsonDumps([undefined], { undefinedValues: 'error' })).toThrow(JsonEncodeError);
  });

  it('refuses what JSON cannot hold with a TypeError, as Python does', () => {
    for (const bad of [() => 1, Symbol('s'), new Date(0), new Map()]) {
      expect(() => pyJsonDumps({ bad })).toThrow(JsonEncodeError);
      expect(() => pyJsonDumps([bad])).toThrow(TypeError);
    }
    expect(pyJsonDumps(new String('boxed'))).toBe('"boxed"');
    expect(pyJsonDumps(Object.assign(Object.create(null), { k: 1 }))).toBe('{"k": 1}');
  });
});
