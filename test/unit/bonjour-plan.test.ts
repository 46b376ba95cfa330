// Spec 10 §6.6, the pure half of `web.bonjour`: the instance name, the SRV host label, which
// listener is advertised at which address, and the records that announce and withdraw it.
import { describe, expect, it } from 'vitest';
import {
  type Advert,
  addressKind,
  advertRecords,
  answerFor,
  chooseListener,
  firstLanIPv4,
  hostLabel,
  instanceName,
  SERVICE,
  srvTarget,
} from '../../src/web/bonjour-plan.ts';

const bytes = (s: string) => new TextEncoder().encode(s).length;

describe('instance name', () => {
  it('is the configured name, else the hostname, with dots turned into dashes', () => {
    expect(instanceName('Build Box', 'host.example.com')).toBe('Build Box');
    expect(instanceName(null, 'host.example.com')).toBe('host-example-com');
    expect(instanceName('a.b.c', 'h')).toBe('a-b-c');
  });

  it('keeps at most 63 UTF-8 bytes and never splits a character', () => {
    expect(instanceName('x'.repeat(80), 'h')).toBe('x'.repeat(63));
    // 'é' is two bytes: 31 of them are 62 bytes, a 32nd would make 64.
    const accented = instanceName('é'.repeat(40), 'h');
    expect(accented).toBe('é'.repeat(31));
    expect(bytes(accented)).toBe(62);
    const emoji = instanceName(`${'a'.repeat(61)}😀`, 'h');
    expect(emoji).toBe('a'.repeat(61));
  });

  it('falls back to cronstable when nothing is left', () => {
    expect(instanceName('', 'h')).toBe('cronstable');
    expect(instanceName(null, '')).toBe('cronstable');
  });
});

describe('SRV host label and target', () => {
  it('turns each run of characters outside A-Za-z0-9- into one dash and trims dashes', () => {
    expect(hostLabel('Build Box ü #2')).toBe('Build-Box-2');
    expect(hostLabel('--a__b--')).toBe('a-b');
    expect(hostLabel('ops-east-1')).toBe('ops-east-1');
  });

  it('cuts the label to 52 characters so <label>-cronstable fits one 63-byte DNS label', () => {
    const label = hostLabel('k'.repeat(70));
    expect(label).toBe('k'.repeat(52));
    expect(bytes(`${label}-cronstable`)).toBe(63);
    // A cut that ends on a dash drops it: a host label may not end with one.
    expect(hostLabel(`${'k'.repeat(51)} tail`)).toBe('k'.repeat(51));
  });

  it('is its own .local name, never the bare hostname, and has a fallback', () => {
    expect(srvTarget('myhost')).toBe('myhost-cronstable.local');
    expect(srvTarget('日本')).toBe('cronstable-cronstable.local');
  });
});

describe('which listener is advertised', () => {
  it('classifies bound addresses', () => {
    expect(addressKind('0.0.0.0')).toBe('wildcard');
    expect(addressKind('::')).toBe('wildcard');
    expect(addressKind('127.0.0.1')).toBe('loopback');
    expect(addressKind('127.8.9.10')).toBe('loopback');
    expect(addressKind('::1')).toBe('loopback');
    expect(addressKind('::ffff:127.0.0.1')).toBe('loopback');
    expect(addressKind('192.0.2.10')).toBe('ipv4');
    expect(addressKind('fe80::1')).toBe('ipv6');
    expect(addressKind('2001:db8::5')).toBe('ipv6');
  });

  it('prefers the first LAN-reachable https listener, else the first http one', () => {
    const http = { scheme: 'http' as const, address: '0.0.0.0', port: 8080 };
    const https = { scheme: 'https' as const, address: '192.0.2.10', port: 8443 };
    const https2 = { scheme: 'https' as const, address: '192.0.2.11', port: 9443 };
    expect(chooseListener([http, https, https2])).toEqual({
      listener: https,
      wildcard: false,
      ipv4: '192.0.2.10',
    });
    expect(chooseListener([http])).toEqual({ listener: http, wildcard: true, ipv4: null });
  });

  it('never advertises loopback and skips specific IPv6 binds', () => {
    const loopHttps = { scheme: 'https' as const, address: '127.0.0.1', port: 8443 };
    const v6 = { scheme: 'https' as const, address: '2001:db8::5', port: 9443 };
    const lan = { scheme: 'http' as const, address: '192.0.2.10', port: 8080 };
    expect(chooseListener([loopHttps, v6, lan])).toEqual({
      listener: lan,
      wildcard: false,
      ipv4: '192.0.2.10',
    });
    // A dual-stack wildcard is reachable over IPv4 too.
    const dual = { scheme: 'http' as const, address: '::', port: 80 };
    expect(chooseListener([v6, dual])).toMatchObject({ listener: dual, wildcard: true });
  });

  it('says why nothing is advertised', () => {
    const loop = (port: number) => ({ scheme: 'http' as const, address: '127.0.0.1', port });
    expect(chooseListener([loop(1), { ...loop(2), address: '::1' }])).toEqual({
      skip: 'every TCP web listener is bound to loopback, which the LAN cannot reach',
    });
    expect(chooseListener([loop(1), { scheme: 'http', address: 'fe80::1', port: 3 }])).toEqual({
      skip: 'no TCP web listener is reachable over IPv4 from the LAN (loopback and specific IPv6 binds are not advertised)',
    });
    expect(chooseListener([])).toEqual({ skip: 'no TCP web listener is bound' });
  });

  it('takes the first non-loopback IPv4 of the candidates as the primary address', () => {
    expect(firstLanIPv4([null, '127.0.0.1', 'fe80::1', '192.0.2.10', '198.51.100.1'])).toBe('192.0.2.10');
    expect(firstLanIPv4([undefined, '127.0.0.1'])).toBeNull();
  });
});

describe('records', () => {
  const advert: Advert = {
    instance: 'Build Box',
    target: 'Build-Box-cronstable.local',
    ipv4: '192.0.2.10',
    port: 8443,
    scheme: 'https',
    version: '1.2.3',
  };
  const fqdn = `Build Box.${SERVICE}`;

  it('announces PTR, SRV, TXT v and scheme, and only an A record for the target', () => {
    const { answers, additionals } = advertRecords(advert);
    expect(answers).toEqual([
      { name: '_cronstable._tcp.local', type: 'PTR', ttl: 120, data: fqdn },
      { name: '_services._dns-sd._udp.local', type: 'PTR', ttl: 120, data: '_cronstable._tcp.local' },
    ]);
    expect(additionals).toEqual([
      {
        name: fqdn,
        type: 'SRV',
        ttl: 120,
        flush: true,
        data: { port: 8443, target: 'Build-Box-cronstable.local', priority: 0, weight: 0 },
      },
      { name: fqdn, type: 'TXT', ttl: 120, flush: true, data: ['v=1.2.3', 'scheme=https'] },
      { name: 'Build-Box-cronstable.local', type: 'A', ttl: 120, flush: true, data: '192.0.2.10' },
    ]);
  });

  it('withdraws with the same records at TTL 0', () => {
    const bye = advertRecords(advert, 0);
    expect([...bye.answers, ...bye.additionals].every((r) => r.ttl === 0)).toBe(true);
    expect(bye.answers[0]!.data).toBe(fqdn);
  });

  it('answers a browse with the PTR and the rest as additionals', () => {
    const r = answerFor(advert, [{ name: '_cronstable._tcp.local', type: 'PTR' }]);
    expect(r?.answers.map((a) => a.type)).toEqual(['PTR']);
    expect(r?.additionals.map((a) => a.type)).toEqual(['SRV', 'TXT', 'A']);
  });

  it('answers a resolve of the instance or the target, case-insensitively', () => {
    const srv = answerFor(advert, [{ name: `build box.${SERVICE}.`, type: 'SRV' }]);
    expect(srv?.answers.map((a) => a.type)).toEqual(['SRV']);
    expect(srv?.additionals.map((a) => a.type)).toEqual(['A']);
    const any = answerFor(advert, [{ name: fqdn, type: 'ANY' }]);
    expect(any?.answers.map((a) => a.type)).toEqual(['SRV', 'TXT']);
    const a = answerFor(advert, [{ name: 'build-box-cronstable.local', type: 'A' }]);
    expect(a?.answers).toEqual([
      { name: 'Build-Box-cronstable.local', type: 'A', ttl: 120, flush: true, data: '192.0.2.10' },
    ]);
  });

  it('stays silent on questions about other names or types', () => {
    expect(answerFor(advert, [{ name: '_http._tcp.local', type: 'PTR' }])).toBeNull();
    expect(answerFor(advert, [{ name: 'Build-Box-cronstable.local', type: 'AAAA' }])).toBeNull();
    expect(answerFor(advert, [])).toBeNull();
  });
});
