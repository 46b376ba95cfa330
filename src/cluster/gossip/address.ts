// `host:port` addresses of the gossip mesh, and the load-time self-listing drop rules of
// spec 05 §2.2. No DNS is done here: anything else that is this node shows up at run time as a
// peer with status `self`.

export interface HostPort {
  /** The host without IPv6 brackets ('' for an empty host). */
  host: string;
  port: number;
}

export function splitHostPort(text: string): HostPort | null {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]*)):(\d+)$/.exec(text);
  if (!m) return null;
  const port = Number(m[3]);
  if (!(port >= 1 && port <= 65535)) return null;
  return { host: m[1] ?? m[2] ?? '', port };
}

const V4_WILDCARD = new Set(['', '0.0.0.0']);
const V6_WILDCARD = new Set(['', '::']);
const isV4Loopback = (host: string) => /^127(\.\d{1,3}){3}$/.test(host);
const isV6Loopback = (host: string) => host === '::1' || host === '0:0:0:0:0:0:0:1';

/** True when `entry` provably addresses the listener at `listen` of the node named `nodeName`. */
export function isSelfListing(entry: string, listen: string, nodeName: string): boolean {
  if (entry === listen) return true;
  const mine = splitHostPort(listen);
  const theirs = splitHostPort(entry);
  if (!mine || !theirs || mine.port !== theirs.port) return false;
  const v4Wild = V4_WILDCARD.has(mine.host);
  const v6Wild = V6_WILDCARD.has(mine.host);
  if (!v4Wild && !v6Wild) return false;
  if (theirs.host === nodeName) return true;
  return (v4Wild && isV4Loopback(theirs.host)) || (v6Wild && isV6Loopback(theirs.host));
}

/** The peer hosts to poll: exact duplicates dropped (first kept), provable self entries dropped. */
export function peerHosts(listen: string, peers: readonly string[], nodeName: string): string[] {
  const out: string[] = [];
  for (const host of peers) {
    if (out.includes(host) || isSelfListing(host, listen, nodeName)) continue;
    out.push(host);
  }
  return out;
}
