// The dashboard's incident tools as pure logic: failure correlation, the incident timeline, the staggered
// mitigation runner and its Markdown summary, the multi-tail's bookkeeping, and the wallboard's order and timers.
import { describe, expect, it } from 'vitest';
import { staleAfterMs, staleAge } from '../../src/dashboard/connection.ts';
import {
  correlateFailures,
  type Failure,
  failingJobs,
  incidentTimeline,
  signatureText,
  verdictText,
} from '../../src/dashboard/incident.ts';
import {
  type MitigateVerb,
  mitigationCandidates,
  mitigationMarkdown,
  runStaggered,
} from '../../src/dashboard/mitigate.ts';
import {
  addTails,
  contentOf,
  presetNames,
  reattachAction,
  tailPrefix,
} from '../../src/dashboard/multitail.ts';
import { formatRoute, parseRoute } from '../../src/dashboard/route.ts';
import { failureBanner } from '../../src/dashboard/status.ts';
import type { ApiRun } from '../../src/dashboard/types.ts';
import { tvTiles, zenDue } from '../../src/dashboard/wallboard.ts';
import { apiJob } from '../helpers/api-job.ts';

function run(outcome: ApiRun['outcome'], finished: string, exit: number | null = 0, reason?: string): ApiRun {
  return {
    outcome,
    exit_code: exit,
    started_at: null,
    finished_at: finished,
    duration: 1.5,
    fail_reason: reason ?? (outcome === 'failure' && exit !== null ? `exit code ${exit}` : null),
    resources: null,
  };
}

const at = (iso: string): number => Date.parse(iso);
const fail = (
  name: string,
  iso: string | null,
  exit: number | null = 3,
  reason: string | null = null,
): Failure => ({
  name,
  exitCode: exit,
  reason,
  finishedAt: iso === null ? null : at(iso),
});

describe('failure correlation', () => {
  it('calls failures with one exit code and reason within 60 s one cause', () => {
    const c = correlateFailures([
      fail('orders', '2026-07-05T09:15:01Z', 69, 'exit code 69'),
      fail('payments', '2026-07-05T09:15:59Z', 69, 'exit code 69'),
      fail('ledger', '2026-07-05T09:16:00Z', 69, 'exit code 69'),
    ]);
    expect(c.verdict).toBe('one-cause');
    expect(c.groups).toHaveLength(1);
    expect(c.groups[0]!.names).toEqual(['orders', 'payments', 'ledger']);
    expect(c.groups[0]!.signature).toBe('exit 69');
    expect(verdictText(c)).toBe('shared failure signature (exit 69) within 60 s — likely one cause');
  });

  it('splits a signature into windows of 60 s from the first failure', () => {
    const c = correlateFailures([
      fail('a', '2026-07-05T09:00:00Z'),
      fail('b', '2026-07-05T09:00:30Z'),
      fail('c', '2026-07-05T09:01:01Z'),
      fail('d', '2026-07-05T09:01:20Z'),
    ]);
    expect(c.groups.map((g) => g.names)).toEqual([
      ['c', 'd'],
      ['a', 'b'],
    ]);
    // two groups of two out of four: no majority
    expect(c.verdict).toBe('independent');
    expect(verdictText(c)).toBe('no dominant failure signature (2 share exit 3) — likely independent');
  });

  it('needs the same reason as well as the same exit code', () => {
    const c = correlateFailures([
      fail('a', '2026-07-05T09:00:00Z', 1, 'timed out'),
      fail('b', '2026-07-05T09:00:05Z', 1, 'exit code 1'),
    ]);
    expect(c).toMatchObject({ verdict: 'independent', groups: [], total: 2 });
    expect(verdictText(c)).toBe('no shared failure signature — likely independent');
  });

  it('calls a majority group one cause and says how many share it', () => {
    const c = correlateFailures([
      fail('a', '2026-07-05T09:00:00Z', 2),
      fail('b', '2026-07-05T09:00:10Z', 2),
      fail('c', '2026-07-05T09:00:20Z', 2),
      fail('d', '2026-07-05T09:00:20Z', 9),
    ]);
    expect(c.verdict).toBe('one-cause');
    expect(verdictText(c)).toBe('3 of 4 share a failure signature (exit 2) within 60 s — likely one cause');
  });

  it("names the signature without restating the exit code in the daemon's reason", () => {
    expect(signatureText(3, 'failsWhen=nonzeroReturn and retcode=3')).toBe('exit 3');
    expect(signatureText(3, 'exit code 3')).toBe('exit 3');
    expect(signatureText(0, 'failsWhen=producesStderr and stderr is not empty')).toBe(
      'exit 0 · failsWhen=producesStderr and stderr is not empty',
    );
    expect(signatureText(null, 'timed out')).toBe('timed out');
  });

  it('leaves failures without an end time out of every group', () => {
    const c = correlateFailures([fail('a', null), fail('b', null), fail('c', '2026-07-05T09:00:00Z')]);
    expect(c.groups).toEqual([]);
    expect(c.verdict).toBe('independent');
  });

  it('feeds the banner: N is every enabled job whose last run failed and is not running again', () => {
    const jobs = [
      apiJob('a', { last_run: run('failure', '2026-07-05T09:00:00Z', 3) }),
      apiJob('b', { last_run: run('failure', '2026-07-05T09:00:02Z', 3) }),
      apiJob('again', { running: true, pids: [7], last_run: run('failure', '2026-07-05T09:00:02Z', 3) }),
      apiJob('off', { enabled: false, last_run: run('failure', '2026-07-05T09:00:02Z', 3) }),
      apiJob('fine', { last_run: run('success', '2026-07-05T09:00:03Z') }),
    ];
    expect(failingJobs(jobs).map((f) => f.name)).toEqual(['b', 'a']);
    const banner = failureBanner(jobs)!;
    expect(banner).toMatchObject({ kind: 'fleet', correlated: true, signature: 'exit 3' });
    expect(banner.jobs).toHaveLength(2);
  });
});

describe('incident timeline', () => {
  it('lists the newest finish per job, newest first, with gaps and correlated groups', () => {
    const jobs = [
      apiJob('a', { last_run: run('failure', '2026-07-05T09:00:00Z', 3) }),
      apiJob('b', { last_run: run('failure', '2026-07-05T09:00:20Z', 3) }),
      apiJob('ok', { last_run: run('success', '2026-07-05T08:59:00Z'), running: true, pids: [9] }),
      apiJob('never'),
    ];
    const t = incidentTimeline(jobs, correlateFailures(failingJobs(jobs)));
    expect(t.map((e) => [e.name, e.outcome, e.gapMs, e.group])).toEqual([
      ['b', 'failure', 20_000, 'exit 3'],
      ['a', 'failure', 60_000, 'exit 3'],
      ['ok', 'success', null, null],
    ]);
    expect(t[2]!.runningNow).toBe(true);
  });
});

describe('mitigation', () => {
  const jobs = [
    apiJob('zeta', { last_run: run('failure', '2026-07-05T09:00:00Z', 3) }),
    apiJob('alpha', { last_run: run('failure', '2026-07-05T09:00:00Z', null, 'timed out') }),
    apiJob('busy', { running: true, pids: [41, 42] }),
    apiJob('fine', { last_run: run('success', '2026-07-05T09:00:00Z') }),
  ];

  it('offers failing jobs to start and running ones to cancel', () => {
    expect(mitigationCandidates(jobs)).toEqual([
      { name: 'alpha', state: 'failing', verb: 'start', detail: 'timed out' },
      { name: 'zeta', state: 'failing', verb: 'start', detail: 'exit 3' },
      { name: 'busy', state: 'running', verb: 'cancel', detail: 'pid 41, 42' },
    ]);
  });

  const steps = (names: string[], verb: MitigateVerb = 'start') => names.map((name) => ({ name, verb }));

  it('sends one request per job with the stagger between them', async () => {
    const log: string[] = [];
    let clock = 1000;
    const out = await runStaggered(steps(['a', 'b', 'c']), {
      gapMs: 300,
      signal: new AbortController().signal,
      now: () => clock,
      sleep: async (ms) => {
        log.push(`sleep ${ms}`);
        clock += ms;
      },
      act: async (name, verb) => {
        log.push(`${verb} ${name}`);
        return name === 'b'
          ? { ok: false, status: 409, text: '{"error":"job b is disabled"}' }
          : { ok: true, status: 200, text: '' };
      },
    });
    expect(log).toEqual(['start a', 'sleep 300', 'start b', 'sleep 300', 'start c']);
    expect(out.aborted).toBe(false);
    expect(out.results.map((r) => [r.name, r.ok, r.detail, r.at])).toEqual([
      ['a', true, '', 1000],
      ['b', false, 'job b is disabled', 1300],
      ['c', true, '', 1600],
    ]);
  });

  it('stops before the next job when aborted mid-way', async () => {
    const ctrl = new AbortController();
    const sent: string[] = [];
    const out = await runStaggered(steps(['a', 'b', 'c', 'd'], 'cancel'), {
      gapMs: 250,
      signal: ctrl.signal,
      sleep: async () => {},
      act: async (name) => {
        sent.push(name);
        if (name === 'b') ctrl.abort();
        return { ok: true, status: 200, text: '' };
      },
    });
    expect(sent).toEqual(['a', 'b']);
    expect(out).toMatchObject({ aborted: true, skipped: ['c', 'd'] });
  });

  it('records a request that throws as a failed step', async () => {
    const out = await runStaggered(steps(['a']), {
      gapMs: 0,
      signal: new AbortController().signal,
      act: async () => {
        throw new Error('network down');
      },
    });
    expect(out.results[0]).toMatchObject({ ok: false, status: 0, detail: 'network down' });
  });

  it('writes a Markdown summary of what was done and what was not', () => {
    const md = mitigationMarkdown({
      outcome: {
        results: [
          { name: 'a', verb: 'start', ok: true, status: 200, detail: '', at: at('2026-07-05T09:00:01Z') },
          {
            name: 'b',
            verb: 'start',
            ok: false,
            status: 409,
            detail: 'x | y',
            at: at('2026-07-05T09:00:02Z'),
          },
        ],
        skipped: ['c'],
        aborted: true,
      },
      gapMs: 500,
      startedAt: at('2026-07-05T09:00:01Z'),
      finishedAt: at('2026-07-05T09:00:03Z'),
      node: 'n1',
    });
    expect(md).toBe(
      [
        '### cronstable mitigation on n1',
        '',
        '- window: 2026-07-05T09:00:01Z → 2026-07-05T09:00:03Z (3 job(s), 500 ms apart)',
        '- result: 1 ok, 1 failed, aborted with 1 not sent',
        '',
        '| # | job | action | result | at (UTC) |',
        '|---|---|---|---|---|',
        '| 1 | `a` | start | ok | 09:00:01 |',
        '| 2 | `b` | start | **failed**: x \\| y | 09:00:02 |',
        '| 3 | `c` | — | not sent (aborted) | — |',
        '',
      ].join('\n'),
    );
  });
});

describe('multi-tail', () => {
  it('caps the tailed set at four, without duplicates', () => {
    expect(addTails(['a', 'b'], ['b', 'c', 'd', 'e', 'f'])).toEqual({
      names: ['a', 'b', 'c', 'd'],
      dropped: ['e', 'f'],
    });
  });

  it('presets pick the failing or the running jobs', () => {
    const jobs = [
      apiJob('z-fail', { last_run: run('failure', '2026-07-05T09:00:00Z', 1) }),
      apiJob('a-fail', { last_run: run('failure', '2026-07-05T09:00:00Z', 1) }),
      apiJob('busy', { running: true, pids: [1] }),
      apiJob('off', { enabled: false, running: true, pids: [2] }),
    ];
    expect(presetNames(jobs, 'failing')).toEqual(['a-fail', 'z-fail']);
    expect(presetNames(jobs, 'running')).toEqual(['busy']);
  });

  it('pads prefixes to the longest name and cuts very long ones', () => {
    expect(tailPrefix('ab', ['ab', 'abcd'])).toBe('ab  ');
    expect(tailPrefix('x'.repeat(30), ['x'.repeat(30)], 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('re-attaches to a new run, not to the run it already showed', () => {
    const done = apiJob('j', { last_run: run('failure', '2026-07-05T09:00:00Z', 1) });
    const shown = contentOf(done);
    expect(reattachAction(shown, done)).toBe('none');
    // the job runs again: other pids than the stream showed
    const again = apiJob('j', { running: true, pids: [77], last_run: done.last_run });
    expect(reattachAction(shown, again)).toBe('reattach');
    // a stream that followed pid 77 live to its end: the next finish is that run, already on screen
    const live = { ...contentOf(again), adoptNextFinish: true };
    expect(reattachAction(live, again)).toBe('none');
    const finished = apiJob('j', { last_run: run('success', '2026-07-05T09:01:00Z') });
    expect(reattachAction(live, finished)).toBe('adopt');
    // a finish the stream never saw (a run shorter than a poll): fetch its replay
    expect(reattachAction(shown, finished)).toBe('reattach');
  });
});

describe('wallboard', () => {
  it('orders tiles worst first, newest failure first within a status', () => {
    const tiles = tvTiles([
      apiJob('ok', { last_run: run('success', '2026-07-05T09:00:00Z') }),
      apiJob('off', { enabled: false }),
      apiJob('run', { running: true, pids: [1] }),
      apiJob('old-fail', { last_run: run('failure', '2026-07-05T08:00:00Z', 2) }),
      apiJob('new-fail', { last_run: run('failure', '2026-07-05T09:00:00Z', 3) }),
      apiJob('pending'),
    ]);
    expect(tiles.map((t) => t.name)).toEqual(['new-fail', 'old-fail', 'run', 'pending', 'ok', 'off']);
    expect(tiles[0]!.detail).toBe('exit 3');
    expect(tiles[4]!.detail).toBe('took 1.50s');
  });

  it('calls data stale after 15 s or two refresh intervals, whichever is longer (the terminal rule too)', () => {
    expect(staleAfterMs(3000)).toBe(15_000);
    expect(staleAfterMs(10_000)).toBe(20_000);
    expect(staleAfterMs(30_000)).toBe(60_000);
    expect(staleAge(100_000, 90_000, 3000)).toBeNull();
    expect(staleAge(100_000, 80_000, 3000)).toBe(20_000);
    expect(staleAge(100_000, 80_000, 10_000)).toBeNull();
    expect(staleAge(100_000, 75_000, 10_000)).toBe(25_000);
    // a paused refresh counts as 3 s: the data on screen still ages; no answer yet is not "stale"
    expect(staleAfterMs(Number.POSITIVE_INFINITY)).toBe(15_000);
    expect(staleAge(100_000, 90_000, Number.POSITIVE_INFINITY)).toBeNull();
    expect(staleAge(100_000, 1, Number.POSITIVE_INFINITY)).toBe(99_999);
    expect(staleAge(100_000, 0, 3000)).toBeNull();
  });

  it('shows the screensaver after the idle time, never when off', () => {
    expect(zenDue(129_999, 100_000, '30')).toBe(false);
    expect(zenDue(130_000, 100_000, '30')).toBe(true);
    expect(zenDue(10_000_000, 0, 'off')).toBe(false);
  });
});

describe('routes of the incident views', () => {
  it('reads and writes #tv and #tail, with or without a drawer', () => {
    expect(parseRoute('#tv')).toEqual({ view: 'tv', drawer: null });
    expect(parseRoute('#tail/job/db%2Fx/history')).toEqual({
      view: 'tail',
      drawer: { name: 'db/x', tab: 'history' },
    });
    expect(formatRoute({ view: 'tv', drawer: null })).toBe('#tv');
    expect(parseRoute('#nonsense')).toEqual({ view: 'jobs', drawer: null });
  });
});
