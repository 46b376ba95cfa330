// Mail reporter (reporting spec §9.7, spec 09 §8.4) over nodemailer's SMTP transport.
import { connect, type Socket } from 'node:net';
import type { ReportBlock } from '../config/types.ts';
import { DEFAULT_BODY, DEFAULT_SUBJECT } from './defaults.ts';
import { resolveSecret } from './secrets.ts';
import { loadTemplates } from './templates-lazy.ts';
import type { ReportContext, ReportHook, ReportOptions } from './types.ts';

export type MailConfig = NonNullable<ReportBlock['mail']>;

type Nodemailer = typeof import('nodemailer');
// nodemailer costs ~50 ms to load: only pay for it when a mail is actually sent. The npm bundle
// requires it from a file of its own (scripts/build.mjs, REQUIRED_ON_IMPORT), whose namespace has
// only `default`; elsewhere `default` is module.exports too, or absent in a namespace of its own.
let mailer: Promise<Nodemailer> | undefined;
function loadMailer(): Promise<Nodemailer> {
  mailer ??= import('nodemailer').then((m) => (m as { default?: Nodemailer }).default ?? m);
  return mailer;
}

/** Bound on the greeting and each socket idle period (spec: ~60 s). */
export const SMTP_TIMEOUT_MS = 60_000;

/**
 * One mail report's whole budget (spec 09 §8.4): connect, STARTTLS, login and send together. A
 * server that accepts and then never answers would otherwise hold the report, and with it the
 * job's retry arming, for as long as each step's own timeout allows, one after another.
 */
export const MAIL_BUDGET_MS = 60_000;

/** Configured when both `from` and `to` are non-empty. */
export function isMailConfigured(
  cfg: MailConfig | null | undefined,
): cfg is MailConfig & { from: string; to: string } {
  return !!cfg && !!cfg.from?.trim() && !!cfg.to?.trim();
}

/** Sends the report mail; returns without sending when unconfigured or skipped. Throws on failure. */
export async function sendMailReport(
  hook: ReportHook,
  cfg: MailConfig | null | undefined,
  ctx: ReportContext,
  opts: ReportOptions,
): Promise<void> {
  if (!isMailConfigured(cfg)) return;
  const { logger } = opts;
  const password = await resolveSecret(cfg.password, opts.env ?? process.env);
  if (password.kind === 'missingEnv') {
    // The variable's name is deliberately not logged (spec §13).
    logger.error('mail: password env var is not set; not sending email');
    return;
  }
  const { renderTemplate, templateVars } = await loadTemplates();
  const vars = templateVars(ctx);
  const body = renderTemplate(cfg.body ?? DEFAULT_BODY, vars);
  if (hook === 'success' && body.trim() === '') {
    logger.debug(`mail: body of the success report of job ${ctx.name} is empty; not sending email`);
    return;
  }
  const subject = renderTemplate(cfg.subject ?? DEFAULT_SUBJECT, vars).trim();
  const pass = password.kind === 'value' ? password.value : null;
  const user = cfg.username ?? null;
  const { createTransport } = await loadMailer();
  // The connection is opened here and handed to nodemailer, so that an expired budget can close
  // it: nodemailer keeps its per-send connection to itself.
  const sockets: Socket[] = [];
  const transport = createTransport({
    host: cfg.smtpHost || 'localhost',
    port: cfg.smtpPort ?? 25,
    secure: cfg.tls ?? false,
    requireTLS: cfg.starttls ?? false,
    tls: { rejectUnauthorized: cfg.validate_certs ?? true },
    auth: user && pass ? { user, pass } : undefined,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
    dnsTimeout: SMTP_TIMEOUT_MS,
    getSocket: (o: { host?: string; port?: number }, done: (err: Error | null, sock: unknown) => void) => {
      const socket = connect({ host: o.host ?? 'localhost', port: o.port ?? 25 });
      sockets.push(socket);
      const failed = (err: Error) => done(err, null);
      socket.once('error', failed);
      socket.once('connect', () => {
        socket.off('error', failed);
        done(null, { connection: socket });
      });
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), opts.mailBudgetMs ?? MAIL_BUDGET_MS);
  });
  try {
    const to = cfg.to.trim();
    const date = new Date((opts.now ?? Date.now)());
    const message = cfg.html
      ? { from: cfg.from.trim(), to, subject, date, html: body }
      : { from: cfg.from.trim(), to, subject, date, text: body };
    logger.debug(`mail: sending report of job ${ctx.name} to ${to}`);
    const sending = transport.sendMail(message);
    if ((await Promise.race([sending, expired])) === 'expired') {
      // The text names the product's budget; `mailBudgetMs` only exists so tests need not wait it.
      logger.error(`mail: report for job ${ctx.name} did not complete within 60 seconds; giving up on it`);
      sending.catch(() => undefined);
      for (const socket of sockets) socket.destroy();
      return;
    }
    logger.debug(`mail: report of job ${ctx.name} sent`);
  } finally {
    clearTimeout(timer);
    transport.close();
  }
}
