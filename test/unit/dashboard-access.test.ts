// What each `/whoami` answer lets the dashboard offer (spec 10 §5.4).
import { describe, expect, it } from 'vitest';
import { accessOf, FULL_ACCESS, VIEW_ONLY_TITLE } from '../../src/dashboard/access.ts';
import { jobCommands, viewCommands } from '../../src/dashboard/palette.ts';
import { apiJob, PAUSED } from '../helpers/api-job.ts';

const who = (scopes: Array<'view' | 'control' | 'approve'>, authenticated: boolean, allScopes = false) => ({
  authenticated,
  scopes,
  allScopes,
});

describe('accessOf', () => {
  it('not answered yet, or all scopes: the full UI', () => {
    expect(accessOf(null, false)).toEqual(FULL_ACCESS);
    expect(accessOf(who(['approve', 'control', 'view'], false, true), false)).toEqual(FULL_ACCESS);
    expect(accessOf(who(['approve', 'control', 'view'], true, true), true)).toEqual(FULL_ACCESS);
  });

  it('a view token: no control, no approve, not the public view (a token is set)', () => {
    expect(accessOf(who(['view'], true), true)).toEqual({
      control: false,
      approve: false,
      publicView: false,
    });
  });

  it('a control token: control without approve; an approve token the other way', () => {
    expect(accessOf(who(['control', 'view'], true), true)).toEqual({
      control: true,
      approve: false,
      publicView: false,
    });
    expect(accessOf(who(['approve', 'view'], true), true)).toEqual({
      control: false,
      approve: true,
      publicView: false,
    });
  });

  it('anonymous view-only with no stored token is the public view', () => {
    expect(accessOf(who(['view'], false), false)).toEqual({
      control: false,
      approve: false,
      publicView: true,
    });
    expect(VIEW_ONLY_TITLE).toBe('Read-only public view. Set a token to run and pause jobs.');
  });
});

describe('the palette follows the access', () => {
  const paused = PAUSED;
  const jobs = [
    apiJob('a', { paused: null }),
    apiJob('b', { paused }),
    apiJob('c', { running: true, paused: null }),
  ];
  const ctx = (control: boolean, calls: string[] = []) => ({
    open: () => {},
    run: (n: string) => calls.push(`run:${n}`),
    cancel: (n: string) => calls.push(`cancel:${n}`),
    copy: () => {},
    pause: (j: { name: string }) => calls.push(`pause:${j.name}`),
    control,
  });

  it('with control: run or cancel, and pause or resume per row', () => {
    const calls: string[] = [];
    const titles = jobCommands(jobs, ctx(true, calls)).map((c) => c.title);
    expect(titles.filter((t) => / › (run now|cancel|pause for an hour|resume)$/.test(t))).toEqual([
      'a › run now',
      'a › pause for an hour',
      'b › run now',
      'b › resume',
      'c › cancel',
      'c › pause for an hour',
    ]);
    for (const c of jobCommands(jobs, ctx(true, calls)).filter((x) => x.id.startsWith('job.resume'))) c.run();
    expect(calls).toEqual(['pause:b']);
  });

  it('without control: no run, cancel, pause or resume; no mitigate or run-failing', () => {
    const titles = jobCommands(jobs, ctx(false)).map((c) => c.title);
    expect(titles.filter((t) => / › (run now|cancel|pause for an hour|resume)$/.test(t))).toEqual([]);
    expect(titles).toContain('a › copy command');
    const views = viewCommands({
      go: () => {},
      openIncident: () => {},
      openSandbox: () => {},
      openNodeHistory: () => {},
      stateEnabled: false,
      dagCount: 0,
      toggleDags: () => {},
      control: false,
    }).map((c) => c.id);
    expect(views).toContain('incident.timeline');
    expect(views).not.toContain('incident.mitigate');
    expect(views).not.toContain('incident.run-failing');
  });
});
