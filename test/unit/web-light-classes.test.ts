// The light Headers/Request/Response (src/http) behave like the platform's for what Hono,
// our routes and the MCP SDK use; the platform classes (undici, fine to load in a test) are the
// oracle wherever the Fetch standard fixes the answer.
import { describe, expect, it } from 'vitest';
import { LightHeaders } from '../../src/http/headers.ts';
import { LightRequest } from '../../src/http/request.ts';
import { LightResponse } from '../../src/http/response.ts';

/** Node's types declare no iterator on the platform Headers (no DOM.Iterable lib). */
const pairs = (h: unknown) => [...(h as Iterable<[string, string]>)];
const each = (h: unknown, what: 'keys' | 'values') => [
  ...(h as Record<typeof what, () => Iterable<string>>)[what](),
];

describe('LightHeaders', () => {
  const build = <H extends { append(n: string, v: string): void }>(h: H): H => {
    h.append('X-B', ' two ');
    h.append('x-a', '1');
    h.append('Set-Cookie', 'a=1');
    h.append('x-b', 'three');
    h.append('set-cookie', 'b=2');
    h.append('Cookie', 'c=1');
    h.append('cookie', 'd=2');
    return h;
  };

  it('iterates, gets and joins like the platform', () => {
    const light = build(new LightHeaders());
    const platform = build(new Headers());
    expect(pairs(light)).toEqual(pairs(platform));
    for (const name of ['x-b', 'X-A', 'set-cookie', 'cookie', 'missing'])
      expect(light.get(name)).toBe(platform.get(name));
    expect(light.getSetCookie()).toEqual(platform.getSetCookie());
    expect([...light.keys()]).toEqual(each(platform, 'keys'));
    expect([...light.values()]).toEqual(each(platform, 'values'));
    const seen: string[] = [];
    light.forEach((v, k) => {
      seen.push(`${k}=${v}`);
    });
    expect(seen).toEqual(pairs(platform).map(([k, v]) => `${k}=${v}`));
  });

  it('set, delete and has are case-insensitive', () => {
    const h = new LightHeaders({ 'Content-Type': 'text/plain' });
    expect(h.has('content-type')).toBe(true);
    h.set('CONTENT-TYPE', 'application/json');
    expect(h.get('content-type')).toBe('application/json');
    h.delete('Content-type');
    expect(h.has('content-type')).toBe(false);
  });

  it('accepts records, pairs, its own kind and the platform Headers', () => {
    const platform = new Headers([
      ['a', '1'],
      ['b', '2'],
    ]);
    expect(pairs(new LightHeaders(platform as unknown as Iterable<[string, string]>))).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
    expect(pairs(new LightHeaders({ b: '2', a: '1' }))).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
    expect(pairs(new LightHeaders(new LightHeaders([['z', '9']])))).toEqual([['z', '9']]);
    // fetch() takes the light Headers as its init (any iterable of pairs).
    expect(pairs(new Headers(new LightHeaders({ q: 'x' }) as unknown as HeadersInit))).toEqual([['q', 'x']]);
  });

  it('refuses what the platform refuses', () => {
    expect(() => new LightHeaders().append('bad name', 'x')).toThrow(TypeError);
    expect(() => new Headers().append('bad name', 'x')).toThrow(TypeError);
    expect(() => new LightHeaders().set('x', 'a\r\nb')).toThrow(TypeError);
    expect(() => new Headers().set('x', 'a\r\nb')).toThrow(TypeError);
  });
});

describe('LightResponse', () => {
  it('status, ok, headers and the body readers', async () => {
    const r = new LightResponse('{"a":1}', { status: 201, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(201);
    expect(r.ok).toBe(true);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(await r.json()).toEqual({ a: 1 });
    expect(r.bodyUsed).toBe(true);
    await expect(r.text()).rejects.toThrow(TypeError);
    const bytes = new LightResponse(new Uint8Array([1, 2, 3]));
    expect([...new Uint8Array(await bytes.arrayBuffer())]).toEqual([1, 2, 3]);
    expect(new LightResponse(null, { status: 404 }).ok).toBe(false);
    expect(() => new LightResponse(null, { status: 99 })).toThrow(RangeError);
  });

  it('reads a stream body and tees on clone', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('he'));
        c.enqueue(new TextEncoder().encode('llo'));
        c.close();
      },
    });
    const r = new LightResponse(stream);
    const copy = r.clone();
    expect(await r.text()).toBe('hello');
    expect(await copy.text()).toBe('hello');
  });

  it('a string body gets the platform Content-Type once read, as the platform Response has it', async () => {
    const light = new LightResponse('x');
    const platform = new Response('x');
    void light.body;
    expect(light.headers.get('content-type')).toBe(platform.headers.get('content-type'));
    expect(new LightResponse(null).headers.has('content-type')).toBe(false);
  });

  it('is built from another response (Hono: HEAD, and c.res replaced)', async () => {
    const first = new LightResponse('body', { status: 203, headers: { 'x-a': '1' } });
    const head = new LightResponse(null, first);
    expect(head.status).toBe(203);
    expect(head.headers.get('x-a')).toBe('1');
    const rebuilt = new LightResponse(first.body, first);
    expect(await rebuilt.text()).toBe('body');
    const fromPlatform = new LightResponse(
      'p',
      new Response('ignored', { status: 202, headers: { 'x-p': '1' } }),
    );
    expect(fromPlatform.status).toBe(202);
    expect(fromPlatform.headers.get('x-p')).toBe('1');
  });

  it('Response.json and redirect', async () => {
    const j = LightResponse.json({ a: 1 }, { status: 202 });
    expect(j.status).toBe(202);
    expect(j.headers.get('content-type')).toBe('application/json');
    expect(await j.json()).toEqual({ a: 1 });
    const r = LightResponse.redirect('http://h.test/x', 307);
    expect(r.status).toBe(307);
    expect(r.headers.get('location')).toBe('http://h.test/x');
  });
});

describe('LightRequest', () => {
  it('url, method, headers and a text/json body', async () => {
    const r = new LightRequest('http://h.test/a?b=1', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"k":2}',
    });
    expect(r.url).toBe(new Request('http://h.test/a?b=1').url);
    expect(r.method).toBe('POST');
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(await r.json()).toEqual({ k: 2 });
    expect(r.bodyUsed).toBe(true);
    await expect(r.text()).rejects.toThrow(TypeError);
  });

  it('a GET request has no body and cannot be given one', () => {
    expect(new LightRequest('http://h.test/').body).toBeNull();
    expect(() => new LightRequest('http://h.test/', { method: 'GET', body: 'x' })).toThrow(TypeError);
  });

  it('is rebuilt from another request with a new body (hono/body-limit), keeping its signal', async () => {
    const first = new LightRequest('http://h.test/u', {
      method: 'PUT',
      headers: { 'x-a': '1' },
      body: 'old',
    });
    const signal = first.signal;
    const again = new LightRequest(first, { body: new TextEncoder().encode('new') });
    expect(again.url).toBe('http://h.test/u');
    expect(again.method).toBe('PUT');
    expect(again.headers.get('x-a')).toBe('1');
    expect(again.signal).toBe(signal);
    expect(await again.text()).toBe('new');
    LightRequest.abort(first, 'gone');
    expect(again.signal.aborted).toBe(true);
  });

  it('clones with its body, and parses forms through the platform', async () => {
    const r = new LightRequest('http://h.test/', { method: 'POST', body: 'a=1&b=2' });
    const c = r.clone();
    expect(await r.text()).toBe('a=1&b=2');
    expect(await c.text()).toBe('a=1&b=2');
    const form = new LightRequest('http://h.test/', {
      method: 'POST',
      body: new URLSearchParams({ x: 'y' }),
    });
    expect(form.headers.get('content-type')).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    expect((await form.formData()).get('x')).toBe('y');
  });
});
