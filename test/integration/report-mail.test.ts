// Mail reporter against a real SMTP server (smtp-server), messages parsed with mailparser.
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultReportBlock } from '../../src/config/builtins.ts';
import { type MailConfig, sendMailReport } from '../../src/report/mail.ts';
import { hasOpenssl, selfSigned } from '../helpers/pki.ts';
import { RecordingLogger, reportContext } from '../helpers/report-kit.ts';
import { writeTree } from '../helpers/tmp.ts';

interface Received {
  mail: ParsedMail;
  from: string;
  to: string[];
  user: string | null;
  secure: boolean;
}
interface Sink {
  port: number;
  received: Received[];
  auths: { method: string; username: string; password: string }[];
  close(): Promise<void>;
}

const servers: Sink[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function startSmtp(extra: Partial<SMTPServerOptions> = {}): Promise<Sink> {
  const received: Received[] = [];
  const auths: Sink['auths'] = [];
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _session, cb) {
      auths.push({ method: auth.method, username: auth.username ?? '', password: auth.password ?? '' });
      cb(null, { user: auth.username });
    },
    onData(stream, session, cb) {
      simpleParser(stream)
        .then((mail) => {
          received.push({
            mail,
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            user: (session.user as string | undefined) ?? null,
            secure: session.secure,
          });
          cb();
        })
        .catch(cb);
    },
    ...extra,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const sink: Sink = {
    port,
    received,
    auths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  servers.push(sink);
  return sink;
}

function mailCfg(port: number, over: Partial<MailConfig> = {}): MailConfig {
  return {
    ...defaultReportBlock().mail!,
    from: 'cron@example.com',
    to: 'ops@example.com',
    smtpPort: port,
    ...over,
  };
}

const NOW = Date.UTC(2026, 5, 18, 12, 34, 56);
const failed = reportContext({
  success: false,
  fail_reason: 'failsWhen=nonzeroReturn and retcode=3',
  exit_code: 3,
  stdout: 'out\n',
  stderr: 'err\n',
});

function header(mail: ParsedMail, name: string): string | undefined {
  return mail.headerLines.find((h) => h.key === name)?.line.replace(/^[^:]+:\s*/, '');
}

describe('mail reporter', () => {
  it('sends the default failure mail as text/plain with From, To, Subject and a UTC Date', async () => {
    const smtp = await startSmtp();
    const log = new RecordingLogger();
    await sendMailReport(
      'failure',
      mailCfg(smtp.port, { smtpHost: '127.0.0.1', to: ' ops@example.com, dev@example.com ' }),
      failed,
      { logger: log, env: {}, now: () => NOW },
    );
    expect(smtp.received).toHaveLength(1);
    const { mail, from, to, user } = smtp.received[0]!;
    expect(from).toBe('cron@example.com');
    expect(to).toEqual(['ops@example.com', 'dev@example.com']);
    expect(user).toBeNull();
    expect(header(mail, 'from')).toBe('cron@example.com');
    expect(header(mail, 'to')).toBe('ops@example.com, dev@example.com');
    expect(mail.subject).toBe("Cron job 'j' failed");
    expect(header(mail, 'date')).toBe('Thu, 18 Jun 2026 12:34:56 +0000');
    expect(mail.date?.getTime()).toBe(NOW);
    expect(mail.headers.get('content-type')).toMatchObject({ value: 'text/plain' });
    expect(mail.html).toBe(false);
    expect(mail.text).toBe(
      '\n(job failed because failsWhen=nonzeroReturn and retcode=3)\n\nSTDOUT:\n---\nout\n\n---\nSTDERR:\nerr\n\n',
    );
    expect(log.at('error')).toEqual([]);
  });

  it('sends html with rendered, trimmed subject and logs in with username + resolved password', async () => {
    const smtp = await startSmtp();
    const log = new RecordingLogger();
    await sendMailReport(
      'success',
      mailCfg(smtp.port, {
        html: true,
        username: 'mailer',
        password: { value: null, fromFile: null, fromEnvVar: 'SMTP_PASSWORD' },
        subject: '  [{{ environment.HOSTNAME }}] {{ name }} ok \n',
        body: '<p>{{ name }} &amp; {{ success }} é</p>\n',
      }),
      reportContext(),
      { logger: log, env: { SMTP_PASSWORD: 's3cret' }, now: () => NOW },
    );
    expect(smtp.auths).toEqual([
      { method: expect.stringMatching(/PLAIN|LOGIN/), username: 'mailer', password: 's3cret' },
    ]);
    const { mail, user } = smtp.received[0]!;
    expect(user).toBe('mailer');
    expect(mail.subject).toBe('[host1] j ok');
    expect(mail.headers.get('content-type')).toMatchObject({ value: 'text/html' });
    // mailparser terminates the html part it hands back with a newline
    expect(mail.html).toBe('<p>j &amp; True é</p>\n');
  });

  it('reads the password from a file (trimmed)', async () => {
    const smtp = await startSmtp();
    const dir = writeTree({ pw: ' filepw \n' });
    await sendMailReport(
      'failure',
      mailCfg(smtp.port, {
        username: 'u',
        password: { value: null, fromFile: join(dir, 'pw'), fromEnvVar: null },
      }),
      failed,
      { logger: new RecordingLogger(), env: {} },
    );
    expect(smtp.auths.map((a) => a.password)).toEqual(['filepw']);
  });

  it('does not log in with a username but no password', async () => {
    const smtp = await startSmtp();
    await sendMailReport('failure', mailCfg(smtp.port, { username: 'u' }), failed, {
      logger: new RecordingLogger(),
      env: {},
    });
    expect(smtp.auths).toEqual([]);
    expect(smtp.received).toHaveLength(1);
  });

  it('skips with an ERROR (no variable name) when the password env var is unset', async () => {
    const smtp = await startSmtp();
    const log = new RecordingLogger();
    await sendMailReport(
      'failure',
      mailCfg(smtp.port, {
        username: 'u',
        password: { value: null, fromFile: null, fromEnvVar: 'SMTP_PASSWORD' },
      }),
      failed,
      { logger: log, env: {} },
    );
    expect(log.at('error')).toEqual(['mail: password env var is not set; not sending email']);
    expect(log.all().join('\n')).not.toContain('SMTP_PASSWORD');
    expect(smtp.received).toHaveLength(0);
  });

  it('skips an empty-after-trim body for success reports only', async () => {
    const smtp = await startSmtp();
    const cfg = mailCfg(smtp.port, { body: '{% if stdout %}{{ stdout }}{% endif %}  \n\n' });
    await sendMailReport('success', cfg, reportContext(), { logger: new RecordingLogger(), env: {} });
    expect(smtp.received).toHaveLength(0);
    await sendMailReport('failure', cfg, reportContext({ success: false }), {
      logger: new RecordingLogger(),
      env: {},
    });
    await sendMailReport('permanentFailure', cfg, reportContext({ success: false }), {
      logger: new RecordingLogger(),
      env: {},
    });
    expect(smtp.received).toHaveLength(2);
    expect(smtp.received[0]!.mail.subject).toBe("Cron job 'j' failed");
  });

  it('does nothing when from or to is empty', async () => {
    const smtp = await startSmtp();
    await sendMailReport('failure', mailCfg(smtp.port, { to: '' }), failed, {
      logger: new RecordingLogger(),
    });
    await sendMailReport('failure', mailCfg(smtp.port, { from: null }), failed, {
      logger: new RecordingLogger(),
    });
    expect(smtp.received).toHaveLength(0);
  });

  it('fails (reporter error) when the server refuses the connection', async () => {
    const smtp = await startSmtp();
    const port = smtp.port;
    await smtp.close();
    servers.splice(0);
    await expect(
      sendMailReport('failure', mailCfg(port), failed, { logger: new RecordingLogger(), env: {} }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });

  // Spec 09 §8.4: one budget for the whole send; the test shortens it (the product's is 60 s).
  it('gives up on a server that accepts and never answers, closing the connection', async () => {
    const closed: Promise<void>[] = [];
    const silent = createServer((socket) => {
      closed.push(new Promise((r) => socket.once('close', () => r())));
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const log = new RecordingLogger();
      const t0 = Date.now();
      await sendMailReport('failure', mailCfg((silent.address() as AddressInfo).port), failed, {
        logger: log,
        env: {},
        mailBudgetMs: 700,
      });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(650);
      expect(log.at('error')).toEqual([
        'mail: report for job j did not complete within 60 seconds; giving up on it',
      ]);
      expect(closed).toHaveLength(1);
      await closed[0];
    } finally {
      silent.close();
    }
  });

  it('counts the send in the same budget: a server that stalls after DATA is given up too', async () => {
    const smtp = await startSmtp({ onData: (stream) => stream.resume() });
    const log = new RecordingLogger();
    await sendMailReport('failure', mailCfg(smtp.port), failed, { logger: log, env: {}, mailBudgetMs: 700 });
    expect(log.at('error')).toEqual([
      'mail: report for job j did not complete within 60 seconds; giving up on it',
    ]);
    expect(smtp.received).toHaveLength(0);
  });
});

function selfSignedCert(): { key: Buffer; cert: Buffer } {
  const { key, cert } = selfSigned(writeTree({}), 'smtp', 'localhost');
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

describe.skipIf(!hasOpenssl)('mail reporter over TLS (self-signed certificate)', () => {
  it('upgrades with STARTTLS and authenticates when validate_certs is false', async () => {
    const { key, cert } = selfSignedCert();
    const smtp = await startSmtp({ key, cert, disabledCommands: [], allowInsecureAuth: false });
    await sendMailReport(
      'failure',
      mailCfg(smtp.port, {
        starttls: true,
        validate_certs: false,
        username: 'u',
        password: { value: 'pw', fromFile: null, fromEnvVar: null },
      }),
      failed,
      { logger: new RecordingLogger(), env: {} },
    );
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]!.secure).toBe(true);
    expect(smtp.auths).toEqual([expect.objectContaining({ username: 'u', password: 'pw' })]);
  });

  it('refuses a self-signed certificate when validate_certs is true', async () => {
    const { key, cert } = selfSignedCert();
    const smtp = await startSmtp({ key, cert, disabledCommands: [] });
    await expect(
      sendMailReport('failure', mailCfg(smtp.port, { starttls: true }), failed, {
        logger: new RecordingLogger(),
        env: {},
      }),
    ).rejects.toThrow(/certificate/i);
    expect(smtp.received).toHaveLength(0);
  });

  it('speaks implicit TLS when tls is true', async () => {
    const { key, cert } = selfSignedCert();
    const smtp = await startSmtp({ key, cert, secure: true, disabledCommands: [] });
    await sendMailReport('failure', mailCfg(smtp.port, { tls: true, validate_certs: false }), failed, {
      logger: new RecordingLogger(),
      env: {},
    });
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]!.secure).toBe(true);
  });
});
