// The `push` reporter of a report block (spec 10 §6.3): the alert built from the report's context
// and handed to the daemon's push channel. It returns once the alert is handed over: a job's reports
// settle in order, so waiting here on a slow relay would hold back the next run's reports.
import { resolvePushReport } from '../../config/push.ts';
import type { ReportBlock } from '../../config/types.ts';
import type { ReportContext, ReportOptions } from '../types.ts';
import { alertFromContext } from './payload.ts';

export function isPushEnabled(cfg: ReportBlock['push'] | undefined): boolean {
  return cfg?.enabled === true;
}

export async function sendPushReport(
  cfg: ReportBlock['push'] | undefined,
  ctx: ReportContext,
  opts: ReportOptions,
): Promise<void> {
  if (!isPushEnabled(cfg)) return;
  const settings = resolvePushReport(cfg);
  const channel = opts.push?.() ?? null;
  if (!channel) {
    opts.logger.warning(
      `push: report is enabled but the push channel is not running (no \`push:\` section applied, or its registry could not open); dropping alert for ${ctx.name}`,
    );
    return;
  }
  const now = opts.now?.() ?? Date.now();
  channel.dispatch({
    plaintext: alertFromContext(ctx, settings.includeLogTail, now),
    priority: settings.priority,
    event: typeof ctx.extra?.event === 'string',
    about: ctx.name,
  });
}
