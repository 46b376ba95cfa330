// DNS-rebinding gate: without a bearer token the API trusts whoever can reach it, so a request
// must at least name this daemon in its Host header. A page on evil.example whose name was
// re-pointed at 127.0.0.1 still sends `Host: evil.example`, and gets 403 on every route.
import { hostname, networkInterfaces } from 'node:os';
import type { MiddlewareHandler } from 'hono';
import { jsonError, type WebEnv } from './respond.ts';

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/** A Host header's name part, lower-case, IPv6 without brackets; null when unparsable. */
export function hostName(header: string): string | null {
  const h = header.trim().toLowerCase();
  const v6 = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(h);
  if (v6) return v6[1]!;
  const m = /^([^:[\]/@\s]+)(?::\d{1,5})?$/.exec(h);
  return m ? m[1]!.replace(/\.$/, '') : null;
}

function isLoopback(name: string): boolean {
  return (
    name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name)
  );
}

/** The names a request may use for this daemon (besides loopback ones). */
export function allowedHostNames(listen: readonly string[], extra: readonly string[]): Set<string> {
  const names = new Set(extra.map((e) => hostName(e) ?? e.toLowerCase()));
  for (const url of listen) {
    const m = /^https?:\/\/(\[[^\]]+\]|[^:/]+)/i.exec(url);
    if (!m) continue; // unix sockets: no browser reaches them
    const name = hostName(m[1]!) ?? m[1]!.toLowerCase();
    if (!WILDCARDS.has(name)) {
      names.add(name);
      continue;
    }
    // A wildcard listener answers on every address of the host, and by its name.
    names.add(hostname().toLowerCase());
    for (const list of Object.values(networkInterfaces()))
      for (const a of list ?? []) names.add(a.address.toLowerCase());
  }
  return names;
}

export function hostGate(allowed: ReadonlySet<string>): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const header = c.req.header('host');
    // No Host at all (HTTP/1.0 tools) cannot come from a browser page.
    if (header === undefined) return next();
    const name = hostName(header);
    if (name !== null && (isLoopback(name) || allowed.has(name))) return next();
    return jsonError(
      403,
      `Host '${header.slice(0, 100)}' is not a name this daemon answers to (DNS rebinding protection); add it to web.allowedHosts or set web.authToken`,
    );
  };
}
