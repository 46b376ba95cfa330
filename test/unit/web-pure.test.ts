// Pure pieces of the web server: phrases, address parsing, origin matching, token compare,
// folding, exposition tidying, timestamps.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { relativePhrase } from '../../src/api/status.ts';
import { icsUtc, isoInFrame, isoUtc } from '../../src/api/timefmt.ts';
import type { WebSection } from '../../src/config/file-schema.ts';
import { metricsSettings, tidyExposition } from '../../src/metrics/index.ts';
import { parseCron, resolveFrame } from '../../src/schedule/index.ts';
import { resolveAuthToken, tokenMatches, WebConfigError } from '../../src/web/auth.ts';
import { acceptsGzip, acceptsJson, ifNoneMatchHits } from '../../src/web/conditional.ts';
import { blockSeconds, foldLine, icsDuration, renderCalendar, typicalRuntime } from '../../src/web/ical.ts';
import { parseListen } from '../../src/web/listen.ts';
import { originPolicy, sameOrigin } from '../../src/web/origin.ts';
import { intParam } from '../../src/web/respond.ts';
import { sseResponse } from '../../src/web/sse.ts';
import { succeededRun } from '../helpers/run-record.ts';

describe('status phrases', () => {
  it('truncates and pluralises like the reference', () => {
    expect(relativePhrase(0.4)).toBe('in 0 second');
    expect(relativePhrase(1.9)).toBe('in 1 second');
    expect(relativePhrase(14.7)).toBe('in 14 seconds');
    expect(relativePhrase(119.9)).toBe('in 119 seconds');
    expect(relativePhrase(120)).toBe('in 2 minutes');
    expect(relativePhrase(7199)).toBe('in 119 minutes');
    expect(relativePhrase(7200)).toBe('in 2 hours');
    expect(relativePhrase(47.9 * 3600)).toBe('in 47 hours');
    expect(relativePhrase(48 * 3600)).toBe('in 2 days');
    expect(relativePhrase(-3)).toBe('in 0 second');
  });
});

describe('listen addresses', () => {
  it('parses http, https and unix forms and explains the rest', () => {
    expect(parseListen('http://0.0.0.0:8080')).toEqual({
      kind: 'tcp',
      tls: false,
      host: '0.0.0.0',
      port: 8080,
      text: 'http://0.0.0.0:8080',
    });
    expect(parseListen('http://[::1]:80')).toMatchObject({ kind: 'tcp', host: '::1', port: 80 });
    expect(parseListen('https://localhost:8443/')).toMatchObject({
      kind: 'tcp',
      tls: true,
      host: 'localhost',
      port: 8443,
    });
    expect(parseListen('unix:///run/cronstable.sock')).toMatchObject({
      kind: 'unix',
      path: '/run/cronstable.sock',
    });
    expect(parseListen('http://localhost')).toEqual({ error: 'http url needs host and port' });
    expect(parseListen('http://:8080')).toEqual({ error: 'http url needs host and port' });
    expect(parseListen('ws://h:1')).toEqual({ error: 'scheme ws not supported' });
    expect(parseListen('unix://relative.sock')).toHaveProperty('error');
    expect(parseListen('http://h:99999')).toHaveProperty('error');
  });
});

describe('origin gate', () => {
  it('compares host and port, with the default port from the Origin scheme', () => {
    expect(sameOrigin('http://example.com:8080', 'example.com:8080')).toBe(true);
    expect(sameOrigin('https://example.com:8080', 'example.com:8080')).toBe(true);
    expect(sameOrigin('http://example.com', 'example.com')).toBe(true);
    expect(sameOrigin('http://example.com', 'example.com:80')).toBe(true);
    expect(sameOrigin('https://example.com', 'example.com:443')).toBe(true);
    expect(sameOrigin('https://example.com', 'example.com:80')).toBe(false);
    expect(sameOrigin('http://EXAMPLE.com:1', 'example.COM:1')).toBe(true);
    expect(sameOrigin('http://[::1]:8080', '[::1]:8080')).toBe(true);
    expect(sameOrigin('http://[::1]:8080', '[::1]:8081')).toBe(false);
    expect(sameOrigin('null', 'example.com')).toBe(false);
    expect(sameOrigin('file:///x', 'example.com')).toBe(false);
    expect(sameOrigin('http://a.example', undefined)).toBe(false);
  });

  it('reads the Access-Control-Allow-Origin escape hatches from web.headers', () => {
    expect(originPolicy(['https://a'], { 'access-control-allow-ORIGIN': 'https://b' })).toEqual({
      enabled: true,
      allowed: new Set(['https://a', 'https://b']),
    });
    expect(originPolicy([], { 'Access-Control-Allow-Origin': '*' }).enabled).toBe(false);
  });
});

describe('auth token', () => {
  const web = (authToken: WebSection['authToken']): WebSection => ({ listen: [], authToken });
  const expected = (t: string) => createHash('sha256').update(t, 'utf8').digest();

  it('compares in constant time on UTF-8 bytes; empty and unencodable tokens never match', () => {
    expect(tokenMatches('s3cret', expected('s3cret'))).toBe(true);
    expect(tokenMatches('s3cret ', expected('s3cret'))).toBe(false);
    expect(tokenMatches('', expected(''))).toBe(false);
    expect(tokenMatches('\ud800', expected('\ud800'))).toBe(false);
    expect(tokenMatches('ünïcødé', expected('ünïcødé'))).toBe(true);
  });

  it('resolves value, then fromFile, then fromEnvVar; null means auth off', () => {
    expect(resolveAuthToken(web(null))).toBeNull();
    expect(resolveAuthToken({ listen: [] })).toBeNull();
    expect(resolveAuthToken(web({ value: 'v', fromEnvVar: 'X' }), { X: 'e' })).toBe('v');
    expect(resolveAuthToken(web({ value: '', fromEnvVar: 'X' }), { X: 'e' })).toBe('e');
    expect(() => resolveAuthToken(web({ fromEnvVar: 'X' }), {})).toThrow(WebConfigError);
    expect(() => resolveAuthToken(web({}), {})).toThrow(/resolved to an empty token/);
    expect(() => resolveAuthToken(web({ fromFile: '/nonexistent/token' }), {})).toThrow(
      /^web\.authToken\.fromFile could not be read: /,
    );
  });
});

describe('iCalendar helpers', () => {
  it('folds at 75 octets without splitting UTF-8 sequences', () => {
    expect(foldLine('x'.repeat(75))).toBe('x'.repeat(75));
    expect(foldLine('x'.repeat(76))).toBe(`${'x'.repeat(75)}\r\n x`);
    expect(foldLine('y'.repeat(75 + 74 + 1))).toBe(`${'y'.repeat(75)}\r\n ${'y'.repeat(74)}\r\n y`);
    const folded = foldLine(`SUMMARY:${'é'.repeat(60)}`);
    for (const line of folded.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(folded.replace(/\r\n /g, '')).toBe(`SUMMARY:${'é'.repeat(60)}`);
    const emoji = foldLine(`X:${'😀'.repeat(30)}`);
    expect(emoji.replace(/\r\n /g, '')).toBe(`X:${'😀'.repeat(30)}`);
    expect(emoji).not.toMatch(/[\ud800-\udbff]\r\n/);
  });

  it('derives the event block from the average run time', () => {
    expect(blockSeconds(null)).toBe(300);
    expect(blockSeconds(12)).toBe(300);
    expect(blockSeconds(301)).toBe(360);
    expect(blockSeconds(90_000)).toBe(86_400);
    expect(typicalRuntime(12.4)).toBe('12s');
    expect(typicalRuntime(150)).toBe('3m');
    expect(typicalRuntime(5400)).toBe('1.5h');
    expect(icsDuration(300)).toBe('PT5M');
    expect(icsDuration(3600)).toBe('PT1H');
    expect(icsDuration(5400)).toBe('PT1H30M');
    expect(icsDuration(86_400)).toBe('PT24H');
  });

  it('renders the worked example of spec 06 §8, plus a typical runtime from history', async () => {
    const run = (durationSeconds: number) => succeededRun('nightly-close', durationSeconds);
    const entry = {
      name: 'nightly-close',
      cron: parseCron('0 2 * * *'),
      frame: resolveFrame({ timezone: 'Europe/London' }),
    };
    const opts = {
      version: '0.9.0',
      calName: 'cronstable',
      nowMs: Date.parse('2026-07-05T12:00:00Z'),
      days: 1,
      perJob: 100,
    };
    const text = await renderCalendar([{ ...entry, runs: [] }], opts);
    expect(text).toContain(
      ['PRODID:-//cronstable//0.9.0//EN', 'CALSCALE:GREGORIAN', 'METHOD:PUBLISH'].join('\r\n'),
    );
    expect(text).toMatch(
      /BEGIN:VEVENT\r\nUID:[0-9a-f]{12}-20260706T010000Z@cronstable\r\n(SEQUENCE:0\r\n)?DTSTAMP:20260705T120000Z\r\nDTSTART:20260706T010000Z\r\nDURATION:PT5M\r\n/,
    );
    expect(text).not.toContain('DTEND');
    expect(text).toContain('DESCRIPTION:Schedule: 0 2 * * *\\nat 02:00\\nTimezone: Europe/London\r\n');
    expect(text).toContain('STATUS:CONFIRMED\r\n');
    expect(text).toContain('TRANSP:TRANSPARENT\r\n');
    const withHistory = await renderCalendar([{ ...entry, runs: [run(290), run(340)] }], opts);
    expect(withHistory).toContain('DURATION:PT6M\r\n');
    expect(withHistory.replace(/\r\n /g, '')).toContain('\\nTypical runtime: 5m\r\n');
  });
});

describe('exposition tidying', () => {
  const raw = [
    '# HELP a_total A.',
    '# TYPE a_total counter',
    'a_total{x="1"} 3',
    '',
    '# HELP empty Nothing.',
    '# TYPE empty gauge',
    '',
    '# HELP cronstable_info Build.',
    '# TYPE cronstable_info gauge',
    'cronstable_info{version="1"} 1',
    '',
    '# HELP h_seconds H.',
    '# TYPE h_seconds histogram',
    'h_seconds_bucket{le="0.5",j="a"} 0',
    'h_seconds_bucket{le="1",j="a"} 1',
    'h_seconds_bucket{le="+Inf",j="a"} 1',
    '',
  ].join('\n');

  it('drops empty families and renders le bounds as floats', () => {
    expect(tidyExposition(raw)).toBe(
      [
        '# HELP a_total A.',
        '# TYPE a_total counter',
        'a_total{x="1"} 3',
        '# HELP cronstable_info Build.',
        '# TYPE cronstable_info gauge',
        'cronstable_info{version="1"} 1',
        '# HELP h_seconds H.',
        '# TYPE h_seconds histogram',
        'h_seconds_bucket{le="0.5",j="a"} 0',
        'h_seconds_bucket{le="1.0",j="a"} 1',
        'h_seconds_bucket{le="+Inf",j="a"} 1',
        '',
      ].join('\n'),
    );
  });

  it('declares counters without _total and info families as info in OpenMetrics', () => {
    const om = tidyExposition(raw, true);
    expect(om).toContain('# TYPE a counter\na_total{x="1"} 3');
    expect(om).toContain('# HELP cronstable Build.\n# TYPE cronstable info\ncronstable_info{version="1"} 1');
    expect(om.endsWith('# EOF\n')).toBe(true);
  });

  it('reads the metrics setting forms', () => {
    expect(metricsSettings(null)).toMatchObject({ enabled: true, public: false });
    expect(metricsSettings({ listen: [], metrics: false }).enabled).toBe(false);
    expect(metricsSettings({ listen: [], metrics: { enabled: false } }).enabled).toBe(false);
    expect(metricsSettings({ listen: [], metrics: { public: true, durationBuckets: [1, 2] } })).toEqual({
      enabled: true,
      public: true,
      durationBuckets: [1, 2],
    });
  });
});

describe('timestamps and parameters', () => {
  it('renders ISO-8601 with an offset, microseconds only when non-zero', () => {
    expect(isoUtc(Date.parse('2026-07-05T09:00:01Z'))).toBe('2026-07-05T09:00:01+00:00');
    expect(isoUtc(Date.parse('2026-07-05T09:00:01.123Z'))).toBe('2026-07-05T09:00:01.123000+00:00');
    expect(isoInFrame(Date.parse('2026-07-05T09:00:00Z'), { kind: 'zone', zone: 'America/New_York' })).toBe(
      '2026-07-05T05:00:00-04:00',
    );
    expect(isoInFrame(Date.parse('2026-01-05T09:00:00Z'), { kind: 'zone', zone: 'Asia/Kolkata' })).toBe(
      '2026-01-05T14:30:00+05:30',
    );
    expect(icsUtc(Date.parse('2026-07-06T01:00:00Z'))).toBe('20260706T010000Z');
  });

  it('parses integer query parameters: default when missing or bad, clamped when out of range', () => {
    expect(intParam(undefined, 14, 1, 60)).toBe(14);
    expect(intParam('abc', 14, 1, 60)).toBe(14);
    expect(intParam('2.5', 14, 1, 60)).toBe(14);
    expect(intParam('0', 14, 1, 60)).toBe(1);
    expect(intParam('600', 14, 1, 60)).toBe(60);
    expect(intParam(' 30 ', 14, 1, 60)).toBe(30);
  });
});

describe('content coding and event streams', () => {
  it('reads Accept-Encoding', () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('gzip, deflate, br')).toBe(true);
    expect(acceptsGzip('br;q=1.0, GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
  });

  it('matches If-None-Match lists, * and weak tags against a tag (spec 10 §4.10)', () => {
    const tag = '"0123456789abcdef0123456789abcdef"';
    expect(ifNoneMatchHits(undefined, tag)).toBe(false);
    expect(ifNoneMatchHits(tag, tag)).toBe(true);
    expect(ifNoneMatchHits(`W/${tag}, "x"`, tag)).toBe(true);
    expect(ifNoneMatchHits(`"x" ,  ${tag}`, tag)).toBe(true);
    expect(ifNoneMatchHits('*', tag)).toBe(true);
    expect(ifNoneMatchHits('"x", W/"y"', tag)).toBe(false);
    expect(ifNoneMatchHits(tag.slice(1, -1), tag)).toBe(false);
  });

  it('picks JSON when any Accept range is application/json with q > 0 (spec 10 §4.8)', () => {
    expect(acceptsJson(undefined)).toBe(false);
    expect(acceptsJson('application/json')).toBe(true);
    expect(acceptsJson('text/html, application/json;q=0.9')).toBe(true);
    expect(acceptsJson('Application/JSON; charset=utf-8')).toBe(true);
    expect(acceptsJson('*/*')).toBe(false);
    expect(acceptsJson('application/*')).toBe(false);
    expect(acceptsJson('application/json;q=0')).toBe(false);
    expect(acceptsJson('application/json; q=0.0, text/plain')).toBe(false);
  });

  it('sends keep-alive comments while a stream is quiet, and stops them on cancel', async () => {
    let unsubscribed = false;
    const res = sseResponse(
      {
        replay: [{ stream: 'stdout', line: 'a\n' }],
        follow: () => () => {
          unsubscribed = true;
        },
      },
      20,
    );
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let text = '';
    while (!text.includes(': ping')) text += dec.decode((await reader.read()).value);
    expect(text.startsWith('event: line\ndata: {"stream":"stdout","line":"a"}\n\n')).toBe(true);
    await reader.cancel();
    expect(unsubscribed).toBe(true);
  });
});
