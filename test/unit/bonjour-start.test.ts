// Spec 10 §6.6: when `web.bonjour` has nothing it may publish, the daemon says why in the log and
// opens no mDNS socket (both cases return before the library is loaded, so nothing here touches a
// network). The advertising itself is exercised in a network namespace by
// test/integration/bonjour-netns.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { Logger, type LogRecord, setSink } from '../../src/util/log.ts';
import { startBonjour } from '../../src/web/bonjour.ts';

const records: LogRecord[] = [];
setSink((r) => records.push(r));
afterEach(() => {
  records.length = 0;
});
const log = new Logger('cronstable');
const lines = () => records.map((r) => `${r.levelName} ${r.message}`);

describe('startBonjour with nothing to publish', () => {
  it('skips loopback-only listeners and says so', async () => {
    const handle = await startBonjour({
      name: 'x',
      version: '1.0.0',
      log,
      listeners: [
        { scheme: 'http', address: '127.0.0.1', port: 8080 },
        { scheme: 'https', address: '::1', port: 8443 },
      ],
      primaryIPv4: () => Promise.reject(new Error('must not be asked')),
    });
    expect(handle).toBeNull();
    expect(lines()).toEqual([
      'INFO bonjour: not advertising _cronstable._tcp: every TCP web listener is bound to loopback, which the LAN cannot reach',
    ]);
  });

  it('skips a wildcard bind when the host has no LAN IPv4, with a warning', async () => {
    const handle = await startBonjour({
      name: null,
      hostname: 'h',
      version: '1.0.0',
      log,
      listeners: [{ scheme: 'http', address: '0.0.0.0', port: 8080 }],
      primaryIPv4: async () => null,
    });
    expect(handle).toBeNull();
    expect(lines()).toEqual([
      'WARNING bonjour: not advertising _cronstable._tcp: http listener on 0.0.0.0:8080 binds every address, but this host has no non-loopback IPv4 address',
    ]);
  });
});
