// How a report block enters a job's identity (spec 05 §4.2, §4.3). The identity must be
// byte-identical to the reference's, so a default template (null in our config, "use the
// built-in") is hashed as the reference's own default text, and keys the reference never
// hashed (sentry `level`, `extra`) enter only when set away from their default (§4.2's rule
// for new fields), so existing ids never change.
import { eventlogTuned } from '../config/eventlog.ts';
import type { ReportBlock } from '../config/types.ts';

const REDACTED = '<redacted>';

// The reference's default templates as it hashes them. They render like ours
// (src/report/defaults.ts) but are spelt differently; the hash needs this spelling.
const SUBJECT = "Cron job '{{name}}' {% if success %}completed{% else %}failed{% endif %}";
const BODY =
  '\n{% if fail_reason -%}\n(job failed because {{fail_reason}})\n{% endif %}\n' +
  '{% if stdout and stderr -%}\nSTDOUT:\n---\n{{stdout}}\n---\nSTDERR:\n{{stderr}}\n' +
  '{% elif stdout -%}\n{{stdout}}\n{% elif stderr -%}\n{{stderr}}\n' +
  '{% else -%}\n(no output was captured)\n{% endif %}\n';
const SENTRY_BODY = `${SUBJECT}\n${BODY}`;
const WEBHOOK_BODY = `{"text": {% filter tojson %}${SUBJECT}\n${BODY}{% endfilter %}}`;

/** The reference's report `shell` block when none is configured. */
const DEFAULT_SHELL_REPORTER = { command: null, shell: '/bin/sh' };
const DEFAULT_SHELL_TIMEOUT = 60;

type Block = Record<string, unknown>;

/** Keys hashed only when away from their default: value is the default. */
const OPTIONAL_KEYS: Record<string, Record<string, (v: unknown) => boolean>> = {
  sentry: {
    level: (v) => v === undefined || v === 'error',
    extra: (v) => v === undefined || v === null || Object.keys(v as object).length === 0,
  },
  shell: { timeout: (v) => v === undefined || v === null || v === DEFAULT_SHELL_TIMEOUT },
};

function dropDefaults(kind: string, block: Block): Block {
  const rules = OPTIONAL_KEYS[kind] ?? {};
  for (const [key, isDefault] of Object.entries(rules)) if (isDefault(block[key])) delete block[key];
  return block;
}

function redactValue(block: Block | null | undefined, key: string): void {
  const secret = block?.[key] as Block | null | undefined;
  if (secret?.value) secret.value = REDACTED;
}

/** The identity form of one report block: redacted, defaults spelt as the reference does. */
export function reportIdentity(report: ReportBlock | null | undefined): unknown {
  if (!report) return null;
  const out = structuredClone(report) as Record<string, Block | null>;
  const mail = out.mail;
  if (mail) {
    mail.subject ??= SUBJECT;
    mail.body ??= BODY;
    redactValue(mail, 'password');
  }
  const sentry = out.sentry;
  if (sentry) {
    sentry.body ??= SENTRY_BODY;
    redactValue(sentry, 'dsn');
    dropDefaults('sentry', sentry);
  }
  const webhook = out.webhook;
  if (webhook) {
    webhook.body ??= WEBHOOK_BODY;
    redactValue(webhook, 'url');
    const headers = webhook.headers as Record<string, string> | null | undefined;
    if (headers) for (const k of Object.keys(headers)) headers[k] = REDACTED;
  }
  out.shell = out.shell ? dropDefaults('shell', out.shell) : { ...DEFAULT_SHELL_REPORTER };
  // Spec 09 §7.6: a block equal to its defaults is left out, so adding the key changed no id.
  if (!eventlogTuned(report.eventlog)) delete out.eventlog;
  // Spec 10 §6.1 is newer still: a push reporter that is off leaves the id as it was.
  if (report.push?.enabled !== true) delete out.push;
  return out;
}
