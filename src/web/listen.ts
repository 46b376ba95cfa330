// Listen addresses (spec 06 §1.2): `http://HOST:PORT`, `unix:///abs/path.sock` (+ socketMode) and,
// our extension, `https://HOST:PORT` with `web.tls`. Each binds on its own; a bad one is skipped.
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import type { WebSection } from '../config/file-schema.ts';
import { createFetchServer, type FetchHandler } from '../http/serve.ts';
import { errorText } from '../util/errors.ts';
import type { Logger } from '../util/log.ts';

export type ListenAddress =
  | { kind: 'tcp'; tls: boolean; host: string; port: number; text: string }
  | { kind: 'unix'; path: string; text: string };

/** Parses one listen URL, or returns the reason it is skipped. */
export function parseListen(text: string): ListenAddress | { error: string } {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'unix') {
    const path = text.slice('unix://'.length);
    if (!path.startsWith('/')) return { error: 'unix url needs an absolute path (unix:///path/to.sock)' };
    if (process.platform === 'win32') return { error: 'unix sockets are not supported on Windows' };
    return { kind: 'unix', path: decodeURIComponent(path), text };
  }
  if (scheme === 'http' || scheme === 'https') {
    const m = /^https?:\/\/(\[[0-9a-fA-F:.%a-zA-Z]+\]|[^:/[\]]+):(\d{1,5})\/?$/.exec(text);
    if (!m) return { error: `${scheme} url needs host and port` };
    const port = Number(m[2]);
    if (port > 65535) return { error: `port ${port} is out of range` };
    const host = m[1]!.startsWith('[') ? m[1]!.slice(1, -1) : m[1]!;
    return { kind: 'tcp', tls: scheme === 'https', host, port, text };
  }
  return { error: `scheme ${scheme ?? text} not supported` };
}

export interface BoundListener {
  url: string;
  server: Server;
  socketPath: string | null;
  /** Whether it serves https (and so takes a rotated certificate with `setSecureContext`). */
  tls: boolean;
}

/** The one TLS context of a web-app start (spec 10 §3.1), loaded before any listener binds. */
export interface ServerTls {
  options: SecureContextOptions;
  /** `web.tls.clientCa` is set: every https listener requires a client certificate. */
  mutual: boolean;
}

function removeStaleSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // nothing there
  }
}

function listen(server: Server, addr: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => {
      server.off('listening', onListening);
      reject(e);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    if (addr.kind === 'unix') server.listen(addr.path);
    else server.listen(addr.port, addr.host);
  });
}

/** Binds one address; null (after logging why) when it cannot. */
export async function bindListener(
  fetch: FetchHandler,
  addr: ListenAddress,
  web: WebSection,
  log: Logger,
  tls: ServerTls | null,
): Promise<BoundListener | null> {
  let server: Server;
  const https = addr.kind === 'tcp' && addr.tls;
  try {
    if (https) {
      if (!tls) throw new Error('https:// needs web.tls (cert and key)');
      server = createFetchServer(fetch, {
        createServer: createHttpsServer,
        serverOptions: {
          ...tls.options,
          // Mutual TLS (spec 10 §3.1): only this bundle is trusted for clients, and a client without
          // a certificate chaining to it fails the handshake, before any HTTP is spoken.
          ...(tls.mutual ? { requestCert: true, rejectUnauthorized: true } : {}),
        },
      });
    } else server = createFetchServer(fetch);
    if (addr.kind === 'unix') removeStaleSocket(addr.path);
    await listen(server, addr);
  } catch (e) {
    log.error(`web: could not listen on ${addr.text}: ${errorText(e)}`);
    return null;
  }
  let url: string;
  if (addr.kind === 'unix') {
    url = `unix://${addr.path}`;
    if (web.socketMode !== undefined) {
      const mode = Number.parseInt(web.socketMode, 8);
      try {
        if (!Number.isInteger(mode) || !/^[0-7]{1,4}$/.test(web.socketMode))
          throw new Error('not an octal mode');
        chmodSync(addr.path, mode);
      } catch (e) {
        log.warning(`web: could not apply socketMode ${web.socketMode} to ${addr.path}: ${errorText(e)}`);
      }
    }
  } else {
    const port = (server.address() as AddressInfo | null)?.port ?? addr.port;
    const host = addr.host.includes(':') ? `[${addr.host}]` : addr.host;
    url = `${addr.tls ? 'https' : 'http'}://${host}:${port}`;
  }
  log.info(`web: started listening on ${url}`);
  return { url, server, socketPath: addr.kind === 'unix' ? addr.path : null, tls: https };
}

/** Closes a listener and every open connection (log streams included). */
export function closeListener(l: BoundListener): Promise<void> {
  return new Promise((resolve) => {
    const s = l.server;
    s.close(() => {
      if (l.socketPath) removeStaleSocket(l.socketPath);
      resolve();
    });
    s.closeAllConnections?.();
  });
}
