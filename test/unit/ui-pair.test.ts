// The pairing link's pure parts (spec 10 §6.5): base64url without padding of the payload JSON after
// `<pairLinkBase>#`, and what the panel says about the token it hands over.
import { describe, expect, it } from 'vitest';
import { base64Url, pairLink, pairPayload, pairTokenNote } from '../../src/dashboard/pair.ts';

describe('pairing link', () => {
  it('is the base plus # plus base64url(payload) without padding', () => {
    const payload = pairPayload('node-a', 'https://cron.example:8443', 's3cret');
    expect(payload).toEqual({ v: 1, name: 'node-a', url: 'https://cron.example:8443', token: 's3cret' });
    const link = pairLink('https://relay.example/pair', payload);
    const [base, frag] = link.split('#');
    expect(base).toBe('https://relay.example/pair');
    expect(frag).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JSON.parse(Buffer.from(frag!, 'base64url').toString('utf8'))).toEqual(payload);
  });

  it('encodes UTF-8 and drops padding', () => {
    for (const text of ['a', 'ab', 'abc', 'né ü €', '>>>???'])
      expect(base64Url(text)).toBe(Buffer.from(text, 'utf8').toString('base64url'));
  });

  it('warns for an authenticated all-scopes token and notes a missing one', () => {
    expect(pairTokenNote({ authenticated: true, allScopes: true }, true)?.kind).toBe('warning');
    expect(pairTokenNote({ authenticated: true, allScopes: false }, true)).toBeNull();
    // No token configured on the daemon: every caller holds every scope, but nothing is handed over.
    expect(pairTokenNote({ authenticated: false, allScopes: true }, true)).toBeNull();
    expect(pairTokenNote(null, false)?.kind).toBe('note');
  });
});
