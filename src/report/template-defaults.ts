// A report block with the defaults of one kind of report (an SLA breach, a notify event) wherever the
// user left a template unset: one place for both, so their rules cannot drift apart.
import type { ReportBlock } from '../config/types.ts';

export interface TemplateDefaults {
  mailSubject: string;
  mailBody: string;
  webhookBody: string;
  /** Absent: Sentry keeps its own default. */
  sentryBody?: string;
}

export function withTemplateDefaults(block: ReportBlock, d: TemplateDefaults): ReportBlock {
  const sentryBody = d.sentryBody;
  return {
    ...block,
    mail: block.mail && {
      ...block.mail,
      subject: block.mail.subject ?? d.mailSubject,
      body: block.mail.body ?? d.mailBody,
    },
    sentry:
      block.sentry && sentryBody !== undefined
        ? { ...block.sentry, body: block.sentry.body ?? sentryBody }
        : block.sentry,
    webhook: block.webhook && { ...block.webhook, body: block.webhook.body ?? d.webhookBody },
  };
}
