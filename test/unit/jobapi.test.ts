import { describe, expect, it } from 'vitest';
import { pollInterval, renewInterval } from '../../src/jobapi/locks.ts';
import { compactJson, formatValue, parseCursorValue, pyFloat, pyInt } from '../../src/jobapi/pyvalue.ts';
import {
  ApiError,
  checkValueSize,
  compareCodePoints,
  parseJsonObject,
  parseLockRequest,
  requireString,
  requireValue,
  resolveScope,
  scanLexemes,
  transportCap,
  valueBytes,
} from '../../src/jobapi/values.ts';
import { pyJsonDumps } from '../../src/util/pyjson.ts';
import { thrownBy } from '../helpers/thrown.ts';

const enc = (s: string) => new TextEncoder().encode(s);

function apiError(fn: () => unknown): { status: number; message: string } {
  const { status, message } = thrownBy(ApiError, fn);
  return { status, message };
}

describe('python json output', () => {
  it('uses json.dumps default spacing, insertion order and ASCII escapes', () => {
    expect(pyJsonDumps({ rows: 1234, ok: true })).toBe('{"rows": 1234, "ok": true}');
    expect(pyJsonDumps([1, 2])).toBe('[1, 2]');
    expect(pyJsonDumps(null)).toBe('null');
    expect(pyJsonDumps(42)).toBe('42');
    expect(pyJsonDumps(1.5)).toBe('1.5');
    expect(pyJsonDumps(1e20)).toBe('1e+20');
    expect(pyJsonDumps({ a: [1, { b: null }], c: 'x' })).toBe('{"a": [1, {"b": null}], "c": "x"}');
    expect(pyJsonDumps('é\n"\u007f')).toBe('"\\u00e9\\n\\"\\u007f"');
    expect(pyJsonDumps('😀')).toBe('"\\ud83d\\ude00"');
    expect(pyJsonDumps([])).toBe('[]');
    expect(pyJsonDumps({})).toBe('{}');
  });

  it('prints strings verbatim and everything else as JSON', () => {
    expect(formatValue('hello world')).toBe('hello world');
    expect(formatValue('"quoted"')).toBe('"quoted"');
    expect(formatValue({ rows: 1234, ok: true })).toBe('{"rows": 1234, "ok": true}');
    expect(formatValue([1, 2])).toBe('[1, 2]');
    expect(formatValue(null)).toBe('null');
    expect(formatValue(false)).toBe('false');
  });

  it('writes compact request bodies, keeping non-portable tokens visible', () => {
    expect(compactJson({ a: 1, b: 'x' })).toBe('{"a":1,"b":"x"}');
    expect(compactJson({ v: Number.NaN })).toBe('{"v":NaN}');
    expect(compactJson({ v: Number.NEGATIVE_INFINITY })).toBe('{"v":-Infinity}');
    expect(compactJson({ v: 10n ** 20n, s: 'é' })).toBe('{"v":100000000000000000000,"s":"é"}');
    expect(compactJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });
});

describe('python int() / float() for cursor values', () => {
  it('parses ints like Python', () => {
    expect(pyInt('42')).toBe(42);
    expect(pyInt(' -7 ')).toBe(-7);
    expect(pyInt('+5')).toBe(5);
    expect(pyInt('1_000')).toBe(1000);
    expect(pyInt('007')).toBe(7);
    expect(pyInt('99999999999999999999')).toBe(99999999999999999999n);
    expect(pyInt('1.5')).toBeNull();
    expect(pyInt('1__0')).toBeNull();
    expect(pyInt('_1')).toBeNull();
    expect(pyInt('')).toBeNull();
    expect(pyInt('0x10')).toBeNull();
  });

  it('parses floats like Python', () => {
    expect(pyFloat('1.5')).toBe(1.5);
    expect(pyFloat('.5')).toBe(0.5);
    expect(pyFloat('5.')).toBe(5);
    expect(pyFloat('1e3')).toBe(1000);
    expect(pyFloat('-2.5E-1')).toBe(-0.25);
    expect(pyFloat('nan')).toBeNaN();
    expect(pyFloat('-Infinity')).toBe(Number.NEGATIVE_INFINITY);
    expect(pyFloat('inf')).toBe(Number.POSITIVE_INFINITY);
    expect(pyFloat('1e')).toBeNull();
    expect(pyFloat('abc')).toBeNull();
    expect(pyFloat('2024-01-01')).toBeNull();
  });

  it('tries int, then float, then the text', () => {
    expect(parseCursorValue('12')).toBe(12);
    expect(parseCursorValue('12.25')).toBe(12.25);
    expect(parseCursorValue('2024-05-01T00:00:00Z')).toBe('2024-05-01T00:00:00Z');
    expect(parseCursorValue(' 3 ')).toBe(3);
    expect(parseCursorValue('abc')).toBe('abc');
  });
});

describe('request checks', () => {
  it('computes the transport cap and lifts it when a cap is 0', () => {
    expect(transportCap(1_048_576, 67_108_864)).toBe(67_108_864 + 65_536);
    expect(transportCap(16_777_216, 1_000)).toBe(6 * 16_777_216 + 65_536);
    expect(transportCap(0, 100)).toBeNull();
    expect(transportCap(100, 0)).toBeNull();
  });

  it('parses JSON objects and refuses other bodies with 400', () => {
    expect(parseJsonObject(enc('{"key":"a","value":[1,2]}'))).toEqual({ key: 'a', value: [1, 2] });
    expect(apiError(() => parseJsonObject(enc('[1]')))).toEqual({
      status: 400,
      message: 'request body must be a JSON object',
    });
    expect(apiError(() => parseJsonObject(enc('"x"'))).status).toBe(400);
    expect(apiError(() => parseJsonObject(enc('null'))).status).toBe(400);
    expect(apiError(() => parseJsonObject(enc('{bad'))).message).toMatch(/not valid JSON/);
    expect(apiError(() => parseJsonObject(enc(''))).status).toBe(400);
  });

  it('refuses non-portable numbers before any store work', () => {
    expect(apiError(() => parseJsonObject(enc('{"value":NaN}'))).message).toMatch(/not portable.*NaN/);
    expect(apiError(() => parseJsonObject(enc('{"value":-Infinity}'))).message).toMatch(/not portable/);
    expect(apiError(() => parseJsonObject(enc('{"value":1e400}'))).message).toMatch(/not portable/);
    expect(apiError(() => parseJsonObject(enc('{"value":9223372036854775808}'))).message).toMatch(
      /9223372036854775808 is outside the signed 64-bit range/,
    );
    expect(apiError(() => parseJsonObject(enc('{"v":[-9223372036854775809]}'))).status).toBe(400);
    // In range, or a float written with an exponent: accepted.
    expect(parseJsonObject(enc('{"value":9223372036854775807}')).value).toBe(2 ** 63);
    expect(parseJsonObject(enc('{"value":-9223372036854775808}')).value).toBe(-(2 ** 63));
    expect(parseJsonObject(enc('{"value":1e19}')).value).toBe(1e19);
    expect(parseJsonObject(enc('{"value":"NaN Infinity 99999999999999999999"}')).value).toBe(
      'NaN Infinity 99999999999999999999',
    );
  });

  it('scans lexemes outside strings only', () => {
    expect(scanLexemes('{"a":"NaN","b":"\\"Infinity","c":12345678901234567890}')).toEqual({
      bigInts: ['12345678901234567890'],
      nonFinite: false,
    });
    expect(scanLexemes('[NaN]').nonFinite).toBe(true);
    expect(scanLexemes('[-Infinity]').nonFinite).toBe(true);
    expect(scanLexemes('[1.5e10, -3]')).toEqual({ bigInts: [], nonFinite: false });
  });

  it('measures values as compact JSON (a string counts its quotes)', () => {
    expect(valueBytes('abc')).toBe(5);
    expect(valueBytes({ rows: 1234, ok: true })).toBe('{"rows":1234,"ok":true}'.length);
    expect(valueBytes('é')).toBe(4);
    expect(valueBytes(null)).toBe(4);
    checkValueSize('abc', 5);
    checkValueSize('x'.repeat(1000), 0);
    expect(apiError(() => checkValueSize('abcd', 5))).toEqual({
      status: 413,
      message: 'value is 6 bytes as compact JSON, over the maxValueBytes limit of 5',
    });
  });

  it('reports missing fields as "<field> is required"', () => {
    expect(apiError(() => requireString({}, 'key'))).toEqual({ status: 400, message: 'key is required' });
    expect(apiError(() => requireString({ key: '' }, 'key')).message).toBe('key is required');
    expect(apiError(() => requireString({ key: 3 }, 'key')).message).toBe('key must be a string');
    expect(apiError(() => requireValue({ key: 'a' }, 'value')).message).toBe('value is required');
    expect(requireValue({ value: null }, 'value')).toBeNull();
  });

  it('validates lock requests', () => {
    expect(parseLockRequest({ name: 'n' }, 30)).toEqual({
      name: 'n',
      scope: undefined,
      permits: 1,
      ttl: 30,
      wait: false,
      blockSeconds: 0,
    });
    expect(
      parseLockRequest({ name: 'n', ttl: 1, permits: 3, wait: true, blockSeconds: 2.5 }, 30),
    ).toMatchObject({
      ttl: 5,
      permits: 3,
      wait: true,
      blockSeconds: 2.5,
    });
    for (const bad of [0, 1025, 1.5, '2', true])
      expect(apiError(() => parseLockRequest({ name: 'n', permits: bad }, 30)).status).toBe(400);
    expect(apiError(() => parseLockRequest({ name: 'n', ttl: 'x' }, 30)).message).toBe(
      'ttl must be a number',
    );
    expect(apiError(() => parseLockRequest({ name: 'n', blockSeconds: 'x' }, 30)).status).toBe(400);
    expect(apiError(() => parseLockRequest({ name: 'n', wait: 'yes' }, 30)).status).toBe(400);
    expect(apiError(() => parseLockRequest({}, 30)).message).toBe('name is required');
    expect(parseLockRequest({ name: 'n', permits: 1024 }, 30).permits).toBe(1024);
  });

  it('polls and renews at the documented intervals', () => {
    expect(pollInterval(30)).toBe(1);
    expect(pollInterval(5)).toBe(0.5);
    expect(pollInterval(0.1)).toBe(0.05);
    expect(renewInterval(30)).toBe(10);
    expect(renewInterval(1.5)).toBe(1);
  });
});

describe('code point order', () => {
  it('sorts like Python (astral characters after U+FFFF)', () => {
    const items = ['\uffff', '😀', 'b', 'a', 'ab'];
    expect(items.sort(compareCodePoints)).toEqual(['a', 'ab', 'b', '\uffff', '😀']);
  });
});

describe('scope resolution', () => {
  const run = { jobName: 'etl', defaultScope: 'etl', allowedScopes: ['orders-domain'] };

  it('defaults, allows own/global/allowed scopes', () => {
    expect(resolveScope(run, undefined)).toBe('etl');
    expect(resolveScope(run, null)).toBe('etl');
    expect(resolveScope(run, '')).toBe('etl');
    expect(resolveScope(run, 'etl')).toBe('etl');
    expect(resolveScope(run, 'global')).toBe('global');
    expect(resolveScope(run, 'orders-domain')).toBe('orders-domain');
  });

  it('refuses any other scope with 403', () => {
    const e = apiError(() => resolveScope(run, 'payroll'));
    expect(e.status).toBe(403);
    expect(e.message).toMatch(
      /^scope 'payroll' is not permitted for job 'etl'; add it to stateAllowedScopes/,
    );
    expect(apiError(() => resolveScope(run, 7)).status).toBe(400);
  });

  it('uses the DAG XCom scope as a task default', () => {
    const task = { jobName: 'etl.load', defaultScope: 'dagxcom/etl/abc', allowedScopes: [] };
    expect(resolveScope(task, undefined)).toBe('dagxcom/etl/abc');
    expect(resolveScope(task, 'dagxcom/etl/abc')).toBe('dagxcom/etl/abc');
    expect(apiError(() => resolveScope(task, 'etl.load')).status).toBe(403);
  });
});
