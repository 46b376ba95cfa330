// The mitigate console (spec 08 §4.9): start every enabled idle member of a set, or cancel every running one,
// one request every 300 ms (the shared staggered runner), abortable between requests; `y` writes the incident
// up as Markdown (file + clipboard). The set is fixed when the console opens.
import { failingJobs } from '../../../dashboard/incident.ts';
import { type MitigateVerb, runStaggered } from '../../../dashboard/mitigate.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import type { Controller } from '../../app/controller.ts';
import type { Surface } from '../../app/state.ts';
import { seg } from '../../data/client.ts';
import { flatten } from '../../text/sanitize.ts';
import { bodyRow, innerWidth } from '../panel.ts';
import { patchSurface } from '../surface.ts';
import type { PanelPaint, View } from '../types.ts';
import { incidentSet } from './set.ts';
import { writeup } from './writeup.ts';

export interface MitigateSurface extends Surface {
  kind: 'mitigate';
  label: string;
  names: readonly string[];
  log: readonly string[];
  /** the sweep in progress (abort with `a`), null when idle */
  sweep: AbortController | null;
}

const WIDTH = 76;
export const MITIGATE_GAP_MS = 300;

/** Opens the console on the incident set (timeline `m`) or on every failing job (palette). */
export function openMitigate(ctl: Controller, which: 'incident' | 'failing'): void {
  const jobs = ctl.state.data.jobs;
  const names = which === 'incident' ? incidentSet(jobs) : failingJobs(jobs).map((f) => f.name);
  openMitigateOn(ctl, names, which === 'incident' ? 'incident set' : 'failing jobs');
}

/** Opens the console on any set of jobs (the board's marked jobs too); returns the open surface. */
export function openMitigateOn(ctl: Controller, names: readonly string[], label: string): MitigateSurface {
  const m = { kind: 'mitigate', label, names, log: [], sweep: null } as MitigateSurface;
  ctl.push(m);
  return m;
}

/** The members a sweep acts on: `start` the enabled idle ones, `cancel` the running ones. */
export function eligibleNames(
  jobs: readonly ApiJob[],
  names: readonly string[],
  verb: MitigateVerb,
): string[] {
  const byName = new Map(jobs.map((j) => [j.name, j]));
  return names.filter((n) => {
    const j = byName.get(n);
    return j !== undefined && (verb === 'start' ? j.enabled && !j.running : j.running);
  });
}

const append = (ctl: Controller, line: string) =>
  patchSurface<MitigateSurface>(ctl, 'mitigate', (m) => ({ log: [...m.log, line].slice(-200) }));

/** Runs one sweep: `start` the enabled idle members or `cancel` the running ones. */
export async function sweep(ctl: Controller, m: MitigateSurface, verb: MitigateVerb): Promise<void> {
  const names = eligibleNames(ctl.state.data.jobs, m.names, verb);
  const what = verb === 'start' ? 'start' : 'cancel';
  if (!ctl.state.data.access.control) {
    append(ctl, `the token may not ${what} jobs (no control scope)`);
    return;
  }
  if (names.length === 0) {
    append(ctl, `nothing to ${what} (no eligible jobs)`);
    return;
  }
  const abort = new AbortController();
  ctl.update(m, { sweep: abort });
  append(ctl, `— ${verb === 'start' ? 'starting' : 'canceling'} ${names.length} job(s) —`);
  let locked = false;
  const outcome = await runStaggered(
    names.map((name) => ({ name, verb })),
    {
      gapMs: MITIGATE_GAP_MS,
      signal: abort.signal,
      act: async (name, v) => {
        const r = await ctl.deps.client.post(`/jobs/${seg(name)}/${v}`);
        if (r.status === 401) {
          locked = true;
          abort.abort();
        }
        return { ok: r.status >= 200 && r.status < 300, status: r.status, text: '' };
      },
      onStep: (r) => {
        if (r.status === 401) append(ctl, '  ! unauthorized — set a token');
        else if (r.ok) append(ctl, `  ✓ ${verb === 'start' ? 'started' : 'cancelled'} ${flatten(r.name)}`);
        else append(ctl, `  ✕ ${flatten(r.name)} (${r.status ? `HTTP ${r.status}` : flatten(r.detail)})`);
      },
    },
  );
  const ok = outcome.results.filter((r) => r.ok).length;
  const failed = outcome.results.length - ok;
  if (outcome.aborted && !locked) append(ctl, `aborted (${outcome.results.length}/${names.length} sent)`);
  else if (!locked) append(ctl, `done: ${ok} ok${failed ? `, ${failed} failed` : ''}`);
  patchSurface<MitigateSurface>(ctl, 'mitigate', { sweep: null });
  ctl.wake();
}

export const mitigateView: View<MitigateSurface> = {
  kind: 'mitigate',
  paint(m, ctx): PanelPaint {
    const { s } = ctx;
    const inner = innerWidth(WIDTH, s.cols);
    const shown = m.names.slice(0, 6).map(flatten).join(', ');
    const more = m.names.length > 6 ? `, +${m.names.length - 6} more` : '';
    const body = [
      bodyRow(ctx, inner, [
        [` ${m.names.length} job(s) in the set — `, { fg: 'fg', bold: true }],
        [m.label, { fg: 'accent' }],
      ]),
      bodyRow(ctx, inner, [[` ${shown || '(none)'}${more}`, { fg: 'dim' }]]),
      bodyRow(ctx, inner, [['']]),
    ];
    const room = Math.max(3, Math.min(s.rows - 12, 12));
    for (const l of m.log.slice(-room)) {
      const role = l.startsWith('  ✓') ? 'ok' : l.startsWith('  ✕') || l.startsWith('  !') ? 'fail' : 'fg';
      body.push(bodyRow(ctx, inner, [[l, { fg: role }]]));
    }
    if (m.sweep) body.push(bodyRow(ctx, inner, [['… running (a to abort)', { fg: 'warn' }]]));
    return {
      placement: 'panel',
      title: 'mitigate',
      width: WIDTH,
      body,
      hint: 's start all · x cancel all · a abort · y write-up · esc close',
    };
  },
  key(m, key, { ctl }) {
    switch (key.name) {
      case 's':
        if (!m.sweep) void sweep(ctl, m, 'start');
        break;
      case 'x':
        if (!m.sweep) void sweep(ctl, m, 'cancel');
        break;
      case 'a':
        m.sweep?.abort();
        break;
      case 'y':
        writeup(ctl, m);
        break;
    }
    return true;
  },
};
