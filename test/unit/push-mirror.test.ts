// The reporters' copy of the device registry (spec 10 §6.2): read at most every 60 s, 5 s after a
// failed read, at once after a pairing on this node; with no device an alert is dropped and logged.
import { describe, expect, it } from 'vitest';
import type { DeviceRegistry, PushDevice } from '../../src/report/push/device.ts';
import { PushService } from '../../src/report/push/service.ts';
import type { PushAlert } from '../../src/report/types.ts';

function harness() {
  let now = 1_000_000;
  let reads = 0;
  let failNext = false;
  const devices: PushDevice[] = [];
  const registry: DeviceRegistry = {
    list: async () => {
      reads++;
      if (failNext) {
        failNext = false;
        throw new Error('disk on fire');
      }
      return devices;
    },
    put: async () => {},
    remove: async () => false,
    salt: async () => '0'.repeat(32),
  };
  const logs: string[] = [];
  const log = {
    debug() {},
    info() {},
    warning: (m: string) => logs.push(m),
    error: (m: string) => logs.push(m),
  };
  const settings = {
    relayUrl: 'http://127.0.0.1:9/x',
    relayTimeout: 1,
    devicesFile: null,
    allowUnauthenticated: false,
  };
  const service = new PushService(settings, registry, log, { now: () => now });
  return {
    service,
    logs,
    reads: () => reads,
    advance: (ms: number) => {
      now += ms;
    },
    failOnce: () => {
      failNext = true;
    },
  };
}

const alert: PushAlert = {
  plaintext: {
    v: 1,
    kind: 'failure',
    name: 'nightly',
    success: false,
    host: 'h',
    ts: '2026-01-01T00:00:00Z',
  },
  priority: 'time-sensitive',
  event: false,
  about: 'nightly',
};

describe('push mirror', () => {
  it('reads the registry at most once a minute and drops alerts while no device is paired', async () => {
    const h = harness();
    await h.service.send(alert);
    await h.service.send(alert);
    expect(h.reads()).toBe(1);
    expect(h.logs[0]).toBe(
      'push: report is enabled but no device is paired; dropping alert for nightly (pair one at POST /push/devices)',
    );
    h.advance(59_000);
    await h.service.send(alert);
    expect(h.reads()).toBe(1);
    h.advance(2_000);
    await h.service.send(alert);
    expect(h.reads()).toBe(2);
    h.service.invalidate();
    await h.service.send(alert);
    expect(h.reads()).toBe(3);
  });

  it('retries 5 s after a failed read, keeping what it had', async () => {
    const h = harness();
    h.failOnce();
    await h.service.send(alert);
    expect(h.logs).toContain('push: cannot read the device registry: disk on fire');
    h.advance(4_000);
    await h.service.send(alert);
    expect(h.reads()).toBe(1);
    h.advance(1_500);
    await h.service.send(alert);
    expect(h.reads()).toBe(2);
  });
});
