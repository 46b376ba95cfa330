// The gossip mTLS listener (spec 05 §5.1-§5.3): `GET /peer` and `POST /reboot-ran`, nothing
// else. Any client certificate the cluster CA signed is a member, so there is no name check on
// clients; the TLS layer rejects everything else before a request is read.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { errorText } from '../../util/errors.ts';
import { MAX_BODY_BYTES } from './body.ts';

export interface TlsMaterial {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

/** What `GET /peer` answers with, built fresh per request. */
export interface PeerPayload {
  json: string;
  etag: string;
  /** The `X-Cronstable-Node-Stats` value, or null to send none. */
  stats: string | null;
}

export interface PeerHandlers {
  peer(): PeerPayload;
  rebootRan(text: string): boolean;
}

const GZIP_FROM = 1024;

function readCapped(req: IncomingMessage, deadlineMs: number): Promise<string | 408 | 413> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => finish(408), deadlineMs);
    const finish = (v: string | 408 | 413) => {
      clearTimeout(timer);
      req.removeAllListeners('data');
      resolve(v);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) finish(413);
      else chunks.push(chunk);
    });
    req.on('end', () => finish(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => finish(408));
  });
}

function servePeer(req: IncomingMessage, res: ServerResponse, payload: PeerPayload): void {
  const headers: Record<string, string> = { etag: payload.etag, 'cache-control': 'no-store' };
  if (payload.stats !== null) headers['x-cronstable-node-stats'] = payload.stats;
  if (req.headers['if-none-match'] === payload.etag) {
    res.writeHead(304, headers).end();
    return;
  }
  let body = Buffer.from(payload.json, 'utf8');
  headers['content-type'] = 'application/json';
  if (body.length >= GZIP_FROM && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
    body = gzipSync(body);
    headers['content-encoding'] = 'gzip';
  }
  headers['content-length'] = String(body.length);
  res.writeHead(200, headers).end(body);
}

export interface PeerServer {
  close(): Promise<void>;
}

/** Binds the listener; rejects when the TLS material does not load or the bind fails. */
export function startPeerServer(opts: {
  host: string;
  port: number;
  tls: TlsMaterial;
  readTimeoutMs: number;
  keepAliveMs: number;
  handlers: PeerHandlers;
}): Promise<PeerServer> {
  const { handlers } = opts;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/peer') {
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return void res.writeHead(405, { allow: 'GET' }).end();
      return servePeer(req, res, handlers.peer());
    }
    if (path === '/reboot-ran') {
      if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
      const text = await readCapped(req, opts.readTimeoutMs);
      if (text === 408 || text === 413) {
        res.writeHead(text, { connection: 'close' }).end();
        return;
      }
      res.writeHead(handlers.rebootRan(text) ? 204 : 400).end();
      return;
    }
    res.writeHead(404).end();
  };
  return new Promise((resolve, reject) => {
    let server: Server;
    try {
      server = createServer(
        { ...opts.tls, requestCert: true, rejectUnauthorized: true },
        (req, res) => void handle(req, res).catch(() => res.destroy()),
      );
    } catch (err) {
      reject(new Error(`cluster: cannot load the gossip TLS files: ${errorText(err)}`));
      return;
    }
    server.keepAliveTimeout = opts.keepAliveMs;
    server.headersTimeout = Math.max(opts.readTimeoutMs, 1000);
    server.requestTimeout = Math.max(opts.readTimeoutMs * 2, 2000);
    const sockets = new Set<Socket>();
    server.on('secureConnection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    // A failed handshake (a stranger's cert) is the client's problem; never crash on it.
    server.on('tlsClientError', () => {});
    server.once('error', (err) =>
      reject(new Error(`cluster: cannot listen on ${opts.host}:${opts.port}: ${err.message}`)),
    );
    server.listen(opts.port, opts.host === '' ? undefined : opts.host, () => {
      server.removeAllListeners('error');
      server.on('error', () => {});
      resolve({
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const s of sockets) s.destroy();
            server.closeAllConnections();
          }),
      });
    });
  });
}
