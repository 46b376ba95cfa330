// Bulk run / cancel from the board: `Space` marks jobs, then `r` or `x` asks once for the whole marked set and
// hands it to the mitigate console's staggered sweep (one request every 300 ms, `a` aborts, a log of what was
// sent). Marks live for this run only and are cleared by `Esc` on the board or once a sweep starts.
import type { MitigateVerb } from '../../../dashboard/mitigate.ts';
import type { Controller } from '../../app/controller.ts';
import type { Surface } from '../../app/state.ts';
import { flatten } from '../../text/sanitize.ts';
import { boardRows } from '../board/model.ts';
import { eligibleNames, openMitigateOn, sweep } from '../incident/mitigate.ts';
import { bodyRow, innerWidth } from '../panel.ts';
import type { PanelPaint, View, ViewDescriptor } from '../types.ts';

export interface BulkSurface extends Surface {
  kind: 'bulk';
  verb: MitigateVerb;
  /** the marked jobs when the question was asked, board order */
  names: readonly string[];
}

const WIDTH = 64;
const SHOWN = 6;

/** `Space`: marks or unmarks a job. */
export function toggleMark(ctl: Controller, name: string): void {
  const marked = new Set(ctl.state.marked);
  if (marked.has(name)) marked.delete(name);
  else marked.add(name);
  ctl.store.set({ marked });
}

export function clearMarks(ctl: Controller): void {
  ctl.store.set({ marked: new Set() });
  ctl.toast('marks cleared', 'info');
}

/** `r` / `x` with jobs marked: the confirmation over the marked set (jobs gone from `/jobs` are dropped). */
export function askBulk(ctl: Controller, verb: MitigateVerb): void {
  const s = ctl.state;
  // A token without `control` may not start or cancel: no confirmation to offer (spec 10 §5.4).
  if (!s.data.access.control) return;
  // board order first (what the operator sees), then marked jobs the filter hides now
  const shown = boardRows(s).map((r) => r.job.name);
  const names = [...shown, ...s.data.jobs.map((j) => j.name).filter((n) => !shown.includes(n))].filter((n) =>
    s.marked.has(n),
  );
  ctl.push({ kind: 'bulk', verb, names } as BulkSurface);
}

const list = (names: readonly string[]): string =>
  names.slice(0, SHOWN).map(flatten).join(', ') +
  (names.length > SHOWN ? `, +${names.length - SHOWN} more` : '');

function confirm(ctl: Controller, b: BulkSurface): void {
  ctl.close('bulk');
  const act = eligibleNames(ctl.state.data.jobs, b.names, b.verb);
  if (act.length === 0) return;
  ctl.store.set({ marked: new Set() });
  const m = openMitigateOn(ctl, act, 'marked jobs');
  void sweep(ctl, m, b.verb);
}

export const bulkView: View<BulkSurface> = {
  kind: 'bulk',
  paint(b, ctx): PanelPaint {
    const inner = innerWidth(WIDTH, ctx.s.cols);
    const act = eligibleNames(ctx.s.data.jobs, b.names, b.verb);
    const skipped = b.names.filter((n) => !act.includes(n));
    const what = b.verb === 'start' ? 'run' : 'cancel';
    const body: string[] = [];
    if (act.length === 0)
      body.push(
        bodyRow(ctx, inner, [
          [
            ` nothing to ${what}: none of the ${b.names.length} marked job(s) is ${b.verb === 'start' ? 'enabled and idle' : 'running'}`,
            { fg: 'warn' },
          ],
        ]),
      );
    else {
      body.push(
        bodyRow(ctx, inner, [
          [` ${what} ${act.length} of ${b.names.length} marked job(s)?`, { fg: 'bright', bold: true }],
        ]),
      );
      body.push(bodyRow(ctx, inner, [[` ${list(act)}`, { fg: 'fg' }]]));
    }
    if (skipped.length > 0)
      body.push(
        bodyRow(ctx, inner, [
          [
            ` skipped (${b.verb === 'start' ? 'disabled or running' : 'not running'}): ${list(skipped)}`,
            { fg: 'dim' },
          ],
        ]),
      );
    body.push(bodyRow(ctx, inner, [[` one request every 300 ms; a aborts`, { fg: 'dim' }]]));
    return {
      placement: 'panel',
      title: b.verb === 'start' ? 'run marked jobs' : 'cancel marked jobs',
      width: WIDTH,
      body,
      hint: act.length === 0 ? 'esc close' : 'y/enter confirm · n/esc cancel',
    };
  },
  key(b, key, { ctl }) {
    if (key.ctrl) return true;
    if (key.name === 'y' || key.name === 'Y' || key.name === 'enter') confirm(ctl, b);
    else if (key.name === 'n' || key.name === 'N') ctl.close('bulk');
    return true;
  },
};

export const bulkDescriptor: ViewDescriptor = { folder: 'bulk', surfaces: [bulkView] };
