// `cronstable next` (src/cli/next.ts).
import { describe, expect, it } from 'vitest';
import { runNext } from '../../src/cli/next.ts';

async function run(argv: string[], now = '2026-01-07T12:00:00Z') {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runNext(argv, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    nowMs: () => Date.parse(now),
  });
  return { code, out, err };
}

describe('cronstable next', () => {
  it('prints the next fire after now, UTC, second precision', async () => {
    expect(await run(['*/5 * * * *'])).toEqual({ code: 0, out: ['2026-01-07T12:05:00Z'], err: [] });
  });

  it('-n N prints N instants in order', async () => {
    const r = await run(['0 */6 * * *', '-n', '3']);
    expect(r.code).toBe(0);
    expect(r.out).toEqual(['2026-01-07T18:00:00Z', '2026-01-08T00:00:00Z', '2026-01-08T06:00:00Z']);
    expect((await run(['0 */6 * * *', '-n4'])).out).toHaveLength(4);
  });

  it('--after takes an instant with Z or an offset; no offset means UTC', async () => {
    expect((await run(['@daily', '--after', '2026-01-01T00:00:00+01:00'])).out).toEqual([
      '2026-01-01T00:00:00Z',
    ]);
    expect((await run(['@daily', '--after', '2026-01-01T00:00:00Z'])).out).toEqual(['2026-01-02T00:00:00Z']);
    expect((await run(['@daily', '--after', '2026-01-01T00:00:00'])).out).toEqual(['2026-01-02T00:00:00Z']);
    expect((await run(['@hourly', '--after', '2026-01-01T10:30'])).out).toEqual(['2026-01-01T11:00:00Z']);
    expect((await run(['@hourly', '--after=2026-01-01'])).out).toEqual(['2026-01-01T01:00:00Z']);
    expect((await run(['* * * * * * *', '--after', '2026-01-01T10:30:00.250Z'])).out).toEqual([
      '2026-01-01T10:30:01Z',
    ]);
  });

  it('--tz evaluates in the zone; the DST gap fires at the shifted time', async () => {
    const r = await run(['30 2 * * *', '--tz', 'America/New_York', '--after', '2026-03-08T06:00:00Z']);
    expect(r).toEqual({ code: 0, out: ['2026-03-08T07:30:00Z'], err: [] });
    const three = await run([
      '30 2 * * *',
      '--tz',
      'America/New_York',
      '--after',
      '2026-03-07T06:00:00Z',
      '-n',
      '3',
    ]);
    expect(three.out).toEqual(['2026-03-07T07:30:00Z', '2026-03-08T07:30:00Z', '2026-03-09T06:30:00Z']);
  });

  it('--hash-key resolves H', async () => {
    expect((await run(['H * * * *', '--hash-key', 'refresh-cache'])).out).toEqual(['2026-01-07T12:29:00Z']);
  });

  it('a schedule that never fires again prints nothing and exits 0', async () => {
    expect(await run(['0 0 1 1 * 2020'])).toEqual({ code: 0, out: [], err: [] });
    expect(await run(['0 0 30 2 *'])).toEqual({ code: 0, out: [], err: [] });
    expect((await run(['0 0 1 1 *', '-n', '5', '--after', '2097-06-01T00:00:00Z'])).out).toEqual([
      '2098-01-01T00:00:00Z',
      '2099-01-01T00:00:00Z',
    ]);
  });

  it('--help / -h print usage and exit 0', async () => {
    for (const flag of ['--help', '-h']) {
      const r = await run([flag]);
      expect(r.code).toBe(0);
      expect(r.out.join('\n')).toContain(
        'usage: cronstable next EXPR [--tz ZONE] [--after ISO8601] [-n N] [--hash-key NAME]',
      );
      expect(r.err).toEqual([]);
    }
  });

  it.each([
    [
      ['0 0 * * 5L'],
      "cronstable next: invalid schedule '0 0 * * 5L': invalid value '5L' in the day-of-week field (Quartz '5L' (the last Friday of the month) is spelled 'L5' here)",
    ],
    [
      ['* * * *'],
      "cronstable next: invalid schedule '* * * *': expected 5 to 7 whitespace-separated cron fields (or a supported @-nickname), got 4",
    ],
    [
      ['H * * * *'],
      "cronstable next: invalid schedule 'H * * * *': 'H' in the minute field needs a hash key (the job name), and none was given",
    ],
    [['* * * * *', '--tz', 'america/new_york'], 'cronstable next: unknown timezone: america/new_york'],
    [['* * * * *', '--tz', 'Mars/Olympus'], 'cronstable next: unknown timezone: Mars/Olympus'],
    [
      ['* * * * *', '--after', 'yesterday'],
      "cronstable next: invalid --after value 'yesterday': expected an ISO-8601 instant such as 2026-03-08T06:00:00Z",
    ],
    [
      ['* * * * *', '--after', '2026-02-30T00:00:00Z'],
      "cronstable next: invalid --after value '2026-02-30T00:00:00Z': expected an ISO-8601 instant such as 2026-03-08T06:00:00Z",
    ],
    [
      ['* * * * *', '-n', '0'],
      "cronstable next: invalid -n value '0': expected a whole number from 1 to 100000",
    ],
    [
      ['* * * * *', '-n', 'x'],
      "cronstable next: invalid -n value 'x': expected a whole number from 1 to 100000",
    ],
    [
      ['* * * * *', '-n', '-3'],
      "cronstable next: invalid -n value '-3': expected a whole number from 1 to 100000",
    ],
    [[], 'cronstable next: missing schedule expression (see --help)'],
    [
      ['0', '0', '*', '*', '*'],
      'cronstable next: expected one schedule expression, got 5 arguments; quote the expression',
    ],
    [['@reboot'], "cronstable next: '@reboot' fires once at daemon start and has no next fire time"],
  ])('%j exits 2 with one line on stderr', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.out).toEqual([]);
    expect(r.err).toEqual([message]);
  });

  it('an unknown option exits 2', async () => {
    const r = await run(['* * * * *', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toBe("cronstable next: unknown option '--bogus' (see --help)");
  });
});

describe('option syntax', () => {
  it('accepts --opt=value, -nN and -- before the expression', async () => {
    const r = await run(['--tz=Asia/Tokyo', '--after=2026-01-07T00:00:00Z', '-n2', '--', '0 9 * * *']);
    expect(r.out).toEqual(['2026-01-08T00:00:00Z', '2026-01-09T00:00:00Z']);
  });
  it('an option without its value exits 2', async () => {
    expect(await run(['* * * * *', '--tz'])).toEqual({
      code: 2,
      out: [],
      err: ["cronstable next: option '--tz' needs a value (see --help)"],
    });
  });
});
