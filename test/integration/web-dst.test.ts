// Issue 15: /schedule/preview and the iCal feed show a DST policy's fires, over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileJob, nextFiresOf } from '../../src/dashboard/engine.ts';
import type { ApiJob } from '../../src/dashboard/types.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { type Harness, job, startHarness } from './web-harness.ts';

const NOW = Date.parse('2026-10-31T12:00:00Z');

/** DTSTART values of the VEVENTs, as UTC instants. */
function starts(ics: string): string[] {
  return [...ics.matchAll(/^DTSTART(?:;TZID=[^:]+)?:(\d{8}T\d{6}Z?)\r?$/gm)].map((m) => m[1]!);
}

describe('DST policy in the preview and the calendar feed', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(
      [
        job('sampler', 'true', '30 1 * * *', ['timezone: America/New_York', 'dst:', '  repeated: both']),
        job('billing', 'true', '30 1 * * *', ['timezone: America/New_York', 'dst:', '  repeated: last']),
        job('plain', 'true', '30 1 * * *', ['timezone: America/New_York']),
      ].join('\n'),
      undefined,
      { clock: new FakeClock(NOW) },
    );
  });
  afterAll(async () => {
    await h.stop();
  });

  it('the iCal feed lists both 01:30s for repeated: both, the second for last, the first by default', async () => {
    const get = async (name: string) => {
      const r = await h.get(`/jobs/${name}/calendar.ics?days=2`);
      expect(r.status).toBe(200);
      return starts(await r.text());
    };
    const both = await get('sampler');
    const last = await get('billing');
    const plain = await get('plain');
    expect(both.length).toBe(3);
    expect(last.length).toBe(2);
    expect(plain.length).toBe(2);
    // Both feeds share the second-occurrence event; only `both` and `plain` have the first.
    expect(both).toEqual(expect.arrayContaining([...new Set([...last, ...plain])]));
    expect(new Set([...last, ...plain]).size).toBe(3);
  });

  it('/schedule/preview takes dst_repeated / dst_skipped and answers with the policy', async () => {
    const q = (extra: string) =>
      h.get(`/schedule/preview?expr=${encodeURIComponent('30 1 * * *')}&tz=America/New_York&count=3${extra}`);
    const plain = (await (await q('')).json()) as { fires: string[]; dst: unknown };
    expect(plain.dst).toEqual({ repeated: 'first', skipped: 'shift' });
    const both = (await (await q('&dst_repeated=both')).json()) as { fires: string[]; dst: unknown };
    expect(both.dst).toEqual({ repeated: 'both', skipped: 'shift' });
    expect(plain.fires.map((f) => Date.parse(f))).toEqual([
      Date.parse('2026-11-01T05:30:00Z'),
      Date.parse('2026-11-02T06:30:00Z'),
      Date.parse('2026-11-03T06:30:00Z'),
    ]);
    expect(both.fires.map((f) => Date.parse(f))).toEqual([
      Date.parse('2026-11-01T05:30:00Z'),
      Date.parse('2026-11-01T06:30:00Z'),
      Date.parse('2026-11-02T06:30:00Z'),
    ]);
    const bad = await q('&dst_skipped=later');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "invalid dst_skipped 'later': expected one of shift, skip" });
    const spring = (await (
      await h.get(
        `/schedule/preview?expr=${encodeURIComponent('30 2 * * *')}&tz=America/New_York&count=1&dst_skipped=skip`,
      )
    ).json()) as { lint: { code: string; message: string }[] };
    expect(spring.lint.find((l) => l.code === 'dst-skipped-time')?.message).toContain('dst.skipped: skip');
  });

  it("the dashboard's engine, fed the /jobs API, draws the same fires as the preview", async () => {
    const jobs = (await (await h.get('/jobs')).json()) as ApiJob[];
    const byName = new Map(jobs.map((j) => [j.name, j]));
    expect(byName.get('sampler')!.dst).toEqual({ repeated: 'both', skipped: 'shift' });
    expect(byName.get('plain')!.dst).toBeUndefined();
    const preview = async (repeated: string) =>
      (
        (await (
          await h.get(
            `/schedule/preview?expr=${encodeURIComponent('30 1 * * *')}&tz=America/New_York&count=3&dst_repeated=${repeated}`,
          )
        ).json()) as { fires: string[] }
      ).fires.map((f) => Date.parse(f));
    for (const [name, repeated] of [
      ['sampler', 'both'],
      ['billing', 'last'],
      ['plain', 'first'],
    ] as const) {
      const drawn = nextFiresOf(compileJob(byName.get(name)!), NOW, 3);
      expect(drawn).toEqual(await preview(repeated));
    }
  });
});
