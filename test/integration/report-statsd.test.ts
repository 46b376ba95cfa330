// statsd datagrams received by a real UDP socket.
import { createSocket, type Socket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { statsdStart, statsdStop } from '../../src/report/statsd.ts';
import { RecordingLogger } from '../helpers/report-kit.ts';

const sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

async function udpListener(family: 4 | 6 = 4, address = '127.0.0.1') {
  const socket = createSocket(family === 6 ? 'udp6' : 'udp4');
  sockets.push(socket);
  const messages: string[] = [];
  const waiters: (() => void)[] = [];
  socket.on('message', (m) => {
    messages.push(m.toString('utf8'));
    for (const w of waiters.splice(0)) w();
  });
  await new Promise<void>((r) => socket.bind(0, address, r));
  const next = async (count: number): Promise<string[]> => {
    const deadline = Date.now() + 2000;
    while (messages.length < count && Date.now() < deadline) {
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 100);
      });
    }
    return messages.slice(0, count);
  };
  return { port: (socket.address() as AddressInfo).port, messages, next };
}

describe('statsd', () => {
  it('sends the start datagram, then one stop datagram with exact text', async () => {
    const udp = await udpListener();
    const log = new RecordingLogger();
    const target = {
      prefix: 'cron.etl-build-facts',
      host: '127.0.0.1',
      port: udp.port,
      job: 'etl-build-facts',
    };
    await statsdStart(target, log);
    await statsdStop(target, { success: true, durationMs: 1500.4 }, log);
    expect(await udp.next(2)).toEqual([
      'cron.etl-build-facts.start:1|g\n',
      'cron.etl-build-facts.stop:1|g\ncron.etl-build-facts.success:1|g\ncron.etl-build-facts.duration:1500|ms\n',
    ]);
    expect(log.entries.filter((e) => e.level !== 'debug')).toEqual([]);
  });

  it('adds cpu and max_rss when monitored', async () => {
    const udp = await udpListener();
    await statsdStop(
      { prefix: 'p', host: '127.0.0.1', port: udp.port },
      { success: false, durationMs: 10, cpuMs: 250.5, maxRssBytes: 1048576 },
      new RecordingLogger(),
    );
    expect(await udp.next(1)).toEqual([
      'p.stop:1|g\np.success:0|g\np.duration:10|ms\np.cpu:251|ms\np.max_rss:1048576|g\n',
    ]);
  });

  it('resolves a host name at send time', async () => {
    const { address, family } = await lookup('localhost');
    const udp = await udpListener(family === 6 ? 6 : 4, address);
    await statsdStart({ prefix: 'x', host: 'localhost', port: udp.port }, new RecordingLogger());
    expect(await udp.next(1)).toEqual(['x.start:1|g\n']);
  });

  it('logs a WARNING and never throws when sending fails', async () => {
    const log = new RecordingLogger();
    const bad = { prefix: 'p', host: '127.0.0.1', port: 70000, job: 'queue-depth-probe' };
    await expect(statsdStart(bad, log)).resolves.toBeUndefined();
    await expect(statsdStop(bad, { success: true, durationMs: 1 }, log)).resolves.toBeUndefined();
    expect(log.at('warning')).toEqual([
      'Job queue-depth-probe: failed to send statsd job_started metric',
      'Job queue-depth-probe: failed to send statsd job_stopped metric',
    ]);
  });
});
