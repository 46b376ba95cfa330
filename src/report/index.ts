// Reporting entry point (spec 02 §9.2): run a hook's reporters concurrently (spec 10 §6.3 adds push).
import type { ReportBlock } from '../config/types.ts';
import { errorText } from '../util/errors.ts';
import { isMailConfigured, sendMailReport } from './mail.ts';
import { isPushEnabled, sendPushReport } from './push/reporter.ts';
import { isSentryConfigured, sendSentryReport } from './sentry.ts';
import { isShellConfigured, runShellReporter } from './shell.ts';
import type { ReportContext, ReportHook, ReportOptions } from './types.ts';
import { isWebhookConfigured, sendWebhookReport } from './webhook.ts';

export { DEFAULT_BODY, DEFAULT_SENTRY_BODY, DEFAULT_SUBJECT, DEFAULT_WEBHOOK_BODY } from './defaults.ts';
export { isMailConfigured } from './mail.ts';
export { hasSecretSource, resolveSecret } from './secrets.ts';
export { isSentryConfigured, parseDsn } from './sentry.ts';
export { isShellConfigured, shellReporterEnv } from './shell.ts';
export { startDatagram, statsdPrefix, statsdStart, statsdStop, stopDatagram } from './statsd.ts';
export type {
  ReportContext,
  ReportHook,
  ReportLogger,
  ReportOptions,
  SlaBreachFacts,
  StatsdStopMetrics,
  StatsdTarget,
} from './types.ts';
export { isWebhookConfigured } from './webhook.ts';

/** True when at least one reporter of the block is configured (spec §9.2; spec 10 §6.1 push). */
export function isConfigured(block: ReportBlock | null | undefined): boolean {
  if (!block) return false;
  return (
    isSentryConfigured(block.sentry) ||
    isMailConfigured(block.mail) ||
    isShellConfigured(block.shell) ||
    isWebhookConfigured(block.webhook) ||
    isPushEnabled(block.push)
  );
}

/**
 * Runs sentry, mail, shell and webhook for one hook, concurrently. An error in one is logged
 * (`Problem reporting job <name> failure: <err>`, stack at DEBUG) and never affects the
 * others. Resolves when all four have settled; never rejects.
 */
export async function dispatchReports(
  hook: ReportHook,
  block: ReportBlock | null | undefined,
  ctx: ReportContext,
  opts: ReportOptions,
): Promise<void> {
  if (!block) return;
  const { logger } = opts;
  const guard = async (run: () => Promise<void>): Promise<void> => {
    try {
      await run();
    } catch (err) {
      try {
        logger.error(
          `Problem reporting ${opts.problem ?? `job ${ctx.name} ${opts.what ?? 'failure'}`}: ${errorText(err)}`,
        );
        if (err instanceof Error && err.stack) logger.debug(err.stack);
      } catch {
        // a broken logger must not break reporting
      }
    }
  };
  await Promise.all([
    guard(() => sendSentryReport(block.sentry, ctx, opts)),
    guard(() => sendMailReport(hook, block.mail, ctx, opts)),
    guard(() => runShellReporter(block.shell, ctx, opts)),
    guard(() => sendWebhookReport(block.webhook, ctx, opts)),
    guard(() => sendPushReport(block.push, ctx, opts)),
  ]);
}
