// The pure parts of DAG task reporting (spec 04 §11): /proc stat parsing, the monitorResources
// switch, the group sampler's fold of samples, and the streaming redactor of the live log.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { liveRedactor } from '../../src/dag/engine/redact-stream.ts';
import { GroupSampler, sampleGroup, taskMonitor } from '../../src/dag/engine/resources.ts';
import { FakeClock } from '../../src/util/clock.ts';

describe('resource sampling', () => {
  it('reads the switch and interval of monitorResources for a task', () => {
    expect(taskMonitor(false)).toBeNull();
    expect(taskMonitor(true)).toEqual({ interval: 1 });
    expect(taskMonitor({ interval: 0.5 })).toEqual({ interval: 0.5 });
    expect(taskMonitor({ interval: 0.01 })).toEqual({ interval: 0.1 });
    expect(taskMonitor({ enabled: false, interval: 0.5 })).toBeNull();
  });

  it('samples every interval: CPU is the latest total, RSS the peak; nothing after stop', async () => {
    const clock = new FakeClock(0);
    const seq = [
      { cpuSeconds: 0.1, rssBytes: 100 },
      { cpuSeconds: 0.5, rssBytes: 900 },
      null,
      { cpuSeconds: 0.7, rssBytes: 300 },
    ];
    let calls = 0;
    const s = new GroupSampler(7, 0.5, clock, (pgid) => {
      expect(pgid).toBe(7);
      return seq[calls++] ?? null;
    });
    await clock.advance(1600);
    expect(s.stop()).toEqual({ cpuSeconds: 0.7, maxRssBytes: 900, samples: 3 });
    await clock.advance(5000);
    expect(calls).toBe(4);
    expect(new GroupSampler(1, 1, new FakeClock(0), () => null).stop()).toBeNull();
  });

  it('sums a real process group from /proc, and answers null without /proc', async () => {
    // detached: the child leads its own process group, as a task does.
    const child = spawn('/bin/sh', ['-c', 'sleep 5 & sleep 5 & wait'], { detached: true, stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 200));
    const got = sampleGroup(child.pid!);
    expect(got).not.toBeNull();
    expect(got!.rssBytes).toBeGreaterThan(0);
    expect(got!.cpuSeconds).toBeGreaterThanOrEqual(0);
    process.kill(-child.pid!, 'SIGKILL');
    await new Promise((r) => child.on('exit', r));
    expect(sampleGroup(1, '/nonexistent-proc')).toBeNull();
  });
});

describe('live log redaction', () => {
  const L = (line: string) => ({ stream: 'stdout' as const, line });

  it('redacts secret values and patterns in the replay and in followed lines', () => {
    const r = liveRedactor(['hunter2-value']);
    expect(r.replay([L('pw hunter2-value\n'), L('API_KEY=abc\n'), L('fine\n')]).map((l) => l.line)).toEqual([
      'pw ***REDACTED***\n',
      'API_KEY=***REDACTED***\n',
      'fine\n',
    ]);
    expect(r.next(L('again hunter2-value')).line).toBe('again ***REDACTED***');
    expect(r.next({ stream: 'stderr', line: 'Authorization: Bearer abcdefghijkl' })).toEqual({
      stream: 'stderr',
      line: 'Authorization: Bearer ***REDACTED***',
    });
  });

  it('carries an open private-key block from the replay into followed lines, and closes it', () => {
    const r = liveRedactor([]);
    expect(r.replay([L('a'), L('-----BEGIN PRIVATE KEY-----'), L('MIIB')]).map((l) => l.line)).toEqual([
      'a',
      '***REDACTED***',
      '***REDACTED***',
    ]);
    expect(r.next(L('QUJD\n')).line).toBe('***REDACTED***\n');
    expect(r.next(L('-----END PRIVATE KEY-----')).line).toBe('***REDACTED***');
    expect(r.next(L('after')).line).toBe('after');
    // A header evicted from the ring: the replay is redacted through its END.
    expect(
      liveRedactor([])
        .replay([L('MIIB'), L('-----END PRIVATE KEY-----'), L('ok')])
        .map((l) => l.line),
    ).toEqual(['***REDACTED***', '***REDACTED***', 'ok']);
  });
});
