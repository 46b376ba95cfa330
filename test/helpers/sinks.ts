// Real network sinks on loopback for reporter and daemon tests: SMTP, HTTP, UDP.
import { createSocket } from 'node:dgram';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface HttpHit {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export async function httpSink(
  status = 200,
): Promise<{ port: number; hits: HttpHit[]; close: () => Promise<void> }> {
  const hits: HttpHit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export interface ReceivedMail {
  mail: ParsedMail;
  user: string | null;
  password: string | null;
  envelopeFrom: string;
  envelopeTo: string[];
}

export async function smtpSink(): Promise<{
  port: number;
  mails: ReceivedMail[];
  close: () => Promise<void>;
}> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, session, cb) {
      (session as unknown as { creds: [string, string] }).creds = [auth.username ?? '', auth.password ?? ''];
      cb(null, { user: auth.username });
    },
    onData(stream, session, cb) {
      simpleParser(stream).then(
        (mail) => {
          const creds = (session as unknown as { creds?: [string, string] }).creds;
          mails.push({
            mail,
            user: creds?.[0] ?? null,
            password: creds?.[1] ?? null,
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          });
          cb();
        },
        (e: Error) => cb(e),
      );
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.server.address() as AddressInfo).port,
    mails,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export async function udpSink(): Promise<{ port: number; datagrams: string[]; close: () => Promise<void> }> {
  const datagrams: string[] = [];
  const socket = createSocket('udp4');
  socket.on('message', (m) => datagrams.push(m.toString('utf8')));
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  return {
    port: socket.address().port,
    datagrams,
    close: () => new Promise((r) => socket.close(() => r())),
  };
}

/** Polls until `check` returns true (or throws after `timeoutMs`). */
export async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
