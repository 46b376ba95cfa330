// The tour's mail sink, a small Mailpit: an SMTP server (AUTH PLAIN/LOGIN offered, optional,
// since only some reporters log in) that parses every message and an HTTP inbox: `/` lists the
// mail, `/messages/<id>` shows one (HTML bodies in a sandboxed frame), `/api/messages` is JSON.
import { createServer } from 'node:http';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { close, escapeHtml, listen, sendJson, sendText } from './http.ts';

export interface InboxMessage {
  id: number;
  /** ISO time of arrival. */
  at: string;
  /** The user that logged in with AUTH, or null for an anonymous session. */
  authUser: string | null;
  envelopeFrom: string;
  envelopeTo: string[];
  from: string;
  to: string;
  subject: string;
  text: string;
  /** The HTML body, or null for a plain-text mail. */
  html: string | null;
  headers: Record<string, string>;
}

export interface SmtpSinkOptions {
  host?: string;
  /** SMTP port (0: any free port). */
  smtpPort?: number;
  /** Inbox page port (0: any free port). */
  httpPort?: number;
  /** user -> password. When set, AUTH with anything else is refused (535); else any login is taken. */
  users?: Record<string, string>;
  /** One line per message received (default: nothing). */
  log?: (line: string) => void;
  keep?: number;
}

export interface SmtpSink {
  host: string;
  smtpPort: number;
  httpPort: number;
  /** The inbox page: `http://host:httpPort/`. */
  url: string;
  /** `url + api/messages` */
  apiUrl: string;
  messages: InboxMessage[];
  stop(): Promise<void>;
}

function addressText(a: unknown): string {
  if (!a) return '';
  const list = Array.isArray(a) ? a : [a];
  return list.map((x: { text?: string }) => x.text ?? '').join(', ');
}

function inboxPage(messages: InboxMessage[], smtp: string): string {
  const rows = [...messages]
    .reverse()
    .map(
      (m) =>
        `<tr><td>${m.id}</td><td>${escapeHtml(m.at.replace('T', ' ').slice(0, 19))}</td>` +
        `<td>${escapeHtml(m.from)}</td><td>${escapeHtml(m.to)}</td>` +
        `<td><a href="/messages/${m.id}">${escapeHtml(m.subject || '(no subject)')}</a></td>` +
        `<td>${m.authUser ? escapeHtml(m.authUser) : '<span class="dim">none</span>'}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Inbox (${messages.length})</title>
<meta http-equiv="refresh" content="10">
<style>body{font:14px system-ui,sans-serif;margin:2rem;color:#1d2330}table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #e3e6ec}th{background:#f5f6f8}
.dim{color:#8a93a3}a{color:#2457c5}</style></head><body>
<h1>On-call inbox</h1><p class="dim">SMTP on ${escapeHtml(smtp)} · ${messages.length} message(s) · JSON at <a href="/api/messages">/api/messages</a> · refreshes every 10 s</p>
<table><thead><tr><th>#</th><th>Received (UTC)</th><th>From</th><th>To</th><th>Subject</th><th>AUTH</th></tr></thead>
<tbody>${rows || '<tr><td colspan="6" class="dim">No mail yet.</td></tr>'}</tbody></table></body></html>`;
}

function messagePage(m: InboxMessage): string {
  const body = m.html
    ? `<iframe sandbox title="HTML body" srcdoc="${escapeHtml(m.html)}"></iframe>`
    : `<pre>${escapeHtml(m.text)}</pre>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(m.subject)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2rem;color:#1d2330}dt{font-weight:600}dd{margin:0 0 .5rem}
iframe{width:100%;height:60vh;border:1px solid #e3e6ec}pre{background:#f5f6f8;padding:1rem;white-space:pre-wrap}</style></head><body>
<p><a href="/">&larr; inbox</a></p><h1>${escapeHtml(m.subject || '(no subject)')}</h1>
<dl><dt>From</dt><dd>${escapeHtml(m.from)}</dd><dt>To</dt><dd>${escapeHtml(m.to)}</dd>
<dt>Received</dt><dd>${escapeHtml(m.at)}</dd><dt>SMTP AUTH</dt><dd>${escapeHtml(m.authUser ?? 'none')}</dd></dl>
${body}</body></html>`;
}

export async function startSmtpSink(opts: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const host = opts.host ?? '127.0.0.1';
  const keep = opts.keep ?? 500;
  const messages: InboxMessage[] = [];
  let next = 1;
  const smtp = new SMTPServer({
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    banner: 'cronstable tour mail sink',
    // Ctrl-C must not wait the default 30 s for an idle reporter connection.
    closeTimeout: 500,
    onAuth(auth, _session, cb) {
      const user = auth.username ?? '';
      if (opts.users && opts.users[user] !== auth.password) {
        cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
        return;
      }
      cb(null, { user });
    },
    onData(stream, session, cb) {
      simpleParser(stream).then(
        (mail) => {
          const headers: Record<string, string> = {};
          for (const line of mail.headerLines)
            headers[line.key] = line.line.slice(line.key.length + 1).trim();
          const m: InboxMessage = {
            id: next++,
            at: new Date().toISOString(),
            authUser: typeof session.user === 'string' ? session.user : null,
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            from: addressText(mail.from),
            to: addressText(mail.to),
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            html: typeof mail.html === 'string' ? mail.html : null,
            headers,
          };
          messages.push(m);
          if (messages.length > keep) messages.splice(0, messages.length - keep);
          opts.log?.(`mail #${m.id} to ${m.to}: ${m.subject}`);
          cb();
        },
        (e: Error) => cb(e),
      );
    },
  });
  smtp.on('error', (e) => opts.log?.(`smtp sink: ${e.message}`));
  const smtpPort = await new Promise<number>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) =>
      reject(new Error(`smtp sink: cannot listen on ${host}:${opts.smtpPort ?? 0} (${e.code ?? e.message})`));
    smtp.server.once('error', onError);
    smtp.listen(opts.smtpPort ?? 0, host, () => {
      smtp.server.off('error', onError);
      const addr = smtp.server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : 0);
    });
  });
  const stopSmtp = () => new Promise<void>((r) => smtp.close(() => r()));
  const http = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/api/messages') {
      if (req.method === 'GET') return sendJson(res, 200, messages);
      if (req.method === 'DELETE') {
        messages.length = 0;
        return sendJson(res, 200, { cleared: true });
      }
      return sendJson(res, 405, { error: '/api/messages takes GET or DELETE' });
    }
    if (req.method !== 'GET') return sendJson(res, 405, { error: 'GET only' });
    if (path === '/') return sendText(res, 200, 'text/html', inboxPage(messages, `${host}:${smtpPort}`));
    const one = /^\/(api\/)?messages\/(\d+)$/.exec(path);
    if (one) {
      const m = messages.find((x) => x.id === Number(one[2]));
      if (!m) return sendJson(res, 404, { error: `no message ${one[2]}` });
      return one[1] ? sendJson(res, 200, m) : sendText(res, 200, 'text/html', messagePage(m));
    }
    return sendJson(res, 404, { error: `no route ${path}` });
  });
  let httpPort: number;
  try {
    httpPort = await listen(http, host, opts.httpPort ?? 0, 'smtp sink inbox');
  } catch (e) {
    await stopSmtp();
    throw e;
  }
  const url = `http://${host}:${httpPort}/`;
  return {
    host,
    smtpPort,
    httpPort,
    url,
    apiUrl: `${url}api/messages`,
    messages,
    stop: async () => {
      await Promise.all([stopSmtp(), close(http)]);
    },
  };
}
