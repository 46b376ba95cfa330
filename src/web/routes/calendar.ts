// /calendar.ics and /jobs/{name}/calendar.ics (spec 06 §5.10, §8).
import type { Hono } from 'hono';
import { allEntries, analyzedEntries } from '../../api/analysis.ts';
import type { ApiDeps } from '../../api/deps.ts';
import { noScheduleText } from '../../api/schedule.ts';
import { ICS_DISPOSITION } from '../headers.ts';
import {
  type CalendarEntry,
  calendarStream,
  DEFAULT_DAYS,
  DEFAULT_PER_JOB,
  MAX_DAYS,
  MAX_PER_JOB,
} from '../ical.ts';
import { type Ctx, intParam, jsonError, limitParam, param, type WebEnv } from '../respond.ts';

const ICS_HEADERS = {
  'content-type': 'text/calendar; charset=utf-8',
  'content-disposition': ICS_DISPOSITION,
};

export function calendarRoutes(app: Hono<WebEnv>, d: ApiDeps): void {
  const { ctx } = d;

  // Streamed one job at a time: a 14-day feed of a big job set is megabytes of text.
  const answer = (c: Ctx, entries: CalendarEntry[], calName: string): Response => {
    const body = calendarStream(entries, {
      version: ctx.version,
      calName,
      nowMs: ctx.clock.now(),
      days: intParam(c.req.query('days'), DEFAULT_DAYS, 1, MAX_DAYS),
      perJob: limitParam(c, 'per_job', DEFAULT_PER_JOB, 1, MAX_PER_JOB),
    });
    return new Response(body, { headers: ICS_HEADERS });
  };

  const runsOf = (name: string) => ctx.scheduler.history(name)?.recentRuns() ?? [];

  app.get('/calendar.ics', (c) => {
    const entries = analyzedEntries(ctx)
      .entries.map((e) => ({ name: e.name, cron: e.cron, frame: e.frame, dst: e.dst, runs: runsOf(e.name) }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return answer(c, entries, 'cronstable');
  });

  app.get('/jobs/:name/calendar.ics', (c) => {
    const name = param(c, 'name');
    const entry = allEntries(ctx).find((e) => e.name === name);
    if (!entry) return jsonError(404, noScheduleText(name));
    const entries =
      entry.enabled && !entry.reboot && entry.cron
        ? [{ name, cron: entry.cron, frame: entry.frame, dst: entry.dst, runs: runsOf(name) }]
        : [];
    return answer(c, entries, `cronstable: ${name}`);
  });
}
