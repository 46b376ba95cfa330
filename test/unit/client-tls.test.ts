// Client TLS options of `cronstable tui` and `cronstable mcp` (spec 10 §3.3): flag before variable,
// an empty variable unset, the insecure spellings, the material list's order, and the refusals that
// need no file at all. Handshakes against a real daemon are in test/integration/web-mtls.test.ts.
import { describe, expect, it } from 'vitest';
import {
  ClientTlsError,
  insecureExtras,
  loadClientTls,
  materialList,
  resolveClientTls,
  tlsFailure,
} from '../../src/http/client-tls.ts';

describe('client TLS options (spec 10 §3.3)', () => {
  it('is null with nothing set, so the default transport is used', () => {
    expect(resolveClientTls({}, {})).toBeNull();
    expect(resolveClientTls({}, { CRONSTABLE_WEB_CACERT: '', CRONSTABLE_WEB_INSECURE: 'no' })).toBeNull();
  });

  it('takes the flag first, then the variable; an empty variable counts as unset', () => {
    const env = {
      CRONSTABLE_WEB_CACERT: 'env-ca.pem',
      CRONSTABLE_WEB_CLIENT_CERT: 'env-cert.pem',
      CRONSTABLE_WEB_CLIENT_KEY: '',
    };
    expect(resolveClientTls({ cacert: 'flag-ca.pem' }, env)).toEqual({
      cacert: 'flag-ca.pem',
      clientCert: 'env-cert.pem',
      clientKey: null,
      insecure: false,
    });
  });

  it('reads CRONSTABLE_WEB_INSECURE as 1, true or yes in any case', () => {
    for (const v of ['1', 'true', 'TRUE', 'Yes', 'yes'])
      expect(resolveClientTls({}, { CRONSTABLE_WEB_INSECURE: v })?.insecure, v).toBe(true);
    for (const v of ['0', 'false', 'on', 'y'])
      expect(resolveClientTls({}, { CRONSTABLE_WEB_INSECURE: v }), v).toBeNull();
    expect(resolveClientTls({ insecure: true }, {})?.insecure).toBe(true);
  });

  it('lists the material in play as cacert, client-cert, client-key', () => {
    expect(materialList({ cacert: 'a', clientCert: 'b', clientKey: 'c', insecure: false })).toBe(
      '--cacert=a, --client-cert=b, --client-key=c',
    );
    expect(materialList({ cacert: null, clientCert: null, clientKey: 'k.pem', insecure: false })).toBe(
      '--client-key=k.pem',
    );
  });

  it('refuses a key without its certificate, and names an unreadable file with the OS error', () => {
    const lone = () => loadClientTls({ cacert: null, clientCert: null, clientKey: 'k.pem', insecure: false });
    expect(lone).toThrow(ClientTlsError);
    expect(lone).toThrow('a client key needs its certificate: pass both, or neither (--client-key=k.pem)');
    try {
      loadClientTls({ cacert: '/nonexistent', clientCert: null, clientKey: null, insecure: false });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ClientTlsError);
      expect((e as ClientTlsError).material).toBe('--cacert=/nonexistent');
      expect((e as ClientTlsError).reason).toMatch(/ENOENT/);
    }
  });

  it('turns every check off for --insecure, and warns when a CA is given beside it', () => {
    const opts = loadClientTls({ cacert: null, clientCert: null, clientKey: null, insecure: true });
    expect(opts.rejectUnauthorized).toBe(false);
    expect(opts.checkServerIdentity?.()).toBeUndefined();
    expect(insecureExtras({ cacert: 'ca.pem', clientCert: null, clientKey: null, insecure: true })).toEqual([
      'warning: --insecure is given, so --cacert=ca.pem is not used: no certificate is verified at all',
    ]);
    expect(insecureExtras({ cacert: 'ca.pem', clientCert: null, clientKey: null, insecure: false })).toEqual(
      [],
    );
  });

  it('reads a failed request: untrusted certificate, a hang-up on a client without one, or not TLS at all', () => {
    const failed = (code: string, message = code) =>
      new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });
    expect(
      tlsFailure(
        'https://h:1',
        failed('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'),
        false,
      ),
    ).toEqual({
      kind: 'verify',
      reason: 'unable to verify the first certificate',
    });
    expect(tlsFailure('https://h:1', failed('ECONNRESET'), false)).toEqual({ kind: 'client-certificate' });
    // With a certificate presented, a reset is just a reset.
    expect(tlsFailure('https://h:1', failed('ECONNRESET'), true)).toBeNull();
    expect(tlsFailure('https://h:1', failed('ECONNREFUSED'), false)).toBeNull();
    expect(tlsFailure('http://h:1', failed('ECONNRESET'), false)).toBeNull();
  });
});
