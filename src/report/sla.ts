// The `onLate` report (spec 09 §2.7): the context of a job that did not run, and the defaults
// that differ from a run report's — mail subject and body, webhook body (the Sentry body stays the
// standard one; the SLA fingerprint is a config default, config/sla.ts).
import type { JobConfig, ReportBlock } from '../config/types.ts';
import { dispatchReports } from './index.ts';
import { withTemplateDefaults } from './template-defaults.ts';
import type { ReportContext, ReportOptions, SlaBreachFacts } from './types.ts';

export const LATE_SUBJECT = "Cron job '{{ name }}' is overdue ({{ sla_check }})";

/** As it renders mid-template, its final newline included (see defaults.ts for the construction). */
const LATE_BODY_TEXT =
  '\n' +
  'SLA check: {{ sla_check }}\n' +
  'Threshold: {{ threshold_seconds }} seconds\n' +
  'Observed: {{ observed_seconds }} seconds\n' +
  'Last success: {% if last_success_at %}{{ last_success_at }}{% else %}(none recorded){% endif %}\n';

/** One extra `\n`: rendering drops a template's final newline. */
export const LATE_BODY = `${LATE_BODY_TEXT}\n`;

/** `{"text": X}`, X the `tojson` of subject + `\n` + body + `\n` (the 02 §9.5 construction). */
export const LATE_WEBHOOK_BODY = `{"text": {% filter tojson %}${LATE_SUBJECT}\n${LATE_BODY_TEXT}\n{% endfilter %}}`;

/** The block with the overdue texts wherever the user left a template unset. */
export function withLateDefaults(block: ReportBlock): ReportBlock {
  return withTemplateDefaults(block, {
    mailSubject: LATE_SUBJECT,
    mailBody: LATE_BODY,
    webhookBody: LATE_WEBHOOK_BODY,
  });
}

/** A job that did not run: run-shaped values null, `success` false, the breach's four variables. */
export function lateReportContext(job: JobConfig, breach: SlaBreachFacts, host: string): ReportContext {
  return {
    name: job.name,
    success: false,
    fail_reason: `sla: ${breach.check} breached`,
    stdout: null,
    stderr: null,
    exit_code: null,
    command: job.command,
    shell: job.shell,
    environment: { HOSTNAME: host },
    cpu_seconds: null,
    cpu_user_seconds: null,
    cpu_system_seconds: null,
    max_rss_bytes: null,
    schedule: job.scheduleText,
    host,
    run_id: null,
    started_at: null,
    sla: breach,
  };
}

/** Runs the job's `onLate` reporters for one breach; never rejects (reporter errors are logged). */
export function dispatchLateReport(
  block: ReportBlock,
  ctx: ReportContext,
  opts: ReportOptions,
): Promise<void> {
  // `failure`: the mail reporter skips an empty body only for success reports.
  return dispatchReports('failure', withLateDefaults(block), ctx, { ...opts, what: 'SLA breach' });
}
