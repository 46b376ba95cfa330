// What `web.bonjour` advertises (spec 10 §6.6), as pure functions: the instance name, the SRV host
// label, which listener is published and at which IPv4 address, and the DNS-SD records themselves.
// The socket work is in bonjour.ts.

export const SERVICE = '_cronstable._tcp.local';
/** DNS-SD service enumeration (RFC 6763 §9): lets `avahi-browse -a` / `dns-sd -B` list the type. */
export const SERVICES_META = '_services._dns-sd._udp.local';
/** The TTL of every record while advertised; a goodbye sends the same records with TTL 0. */
export const RECORD_TTL = 120;

const FALLBACK_NAME = 'cronstable';
const MAX_INSTANCE_BYTES = 63;
const MAX_LABEL_CHARS = 52;
const utf8 = new TextEncoder();

/**
 * The service instance name: `name` or the hostname, dots turned into `-` (a dot would split the
 * DNS label), cut to 63 UTF-8 bytes without splitting a character; `cronstable` when nothing is left.
 */
export function instanceName(name: string | null, hostname: string): string {
  const base = (name ?? hostname).replaceAll('.', '-');
  let out = '';
  let bytes = 0;
  for (const ch of base) {
    const size = utf8.encode(ch).length;
    if (bytes + size > MAX_INSTANCE_BYTES) break;
    out += ch;
    bytes += size;
  }
  return out === '' ? FALLBACK_NAME : out;
}

/**
 * The SRV target's host label: each run of characters outside `A-Za-z0-9-` becomes `-`, trimmed of
 * `-`, cut to 52 characters so `<label>-cronstable` fits one 63-byte DNS label. The cut may leave
 * a trailing `-`, which a hostname label may not end with, so it is trimmed again.
 */
export function hostLabel(instance: string): string {
  const label = instance
    .replace(/[^A-Za-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_LABEL_CHARS)
    .replace(/-+$/, '');
  return label === '' ? FALLBACK_NAME : label;
}

/**
 * The SRV target. Its own name, never the machine's `<hostname>.local`, so our A record cannot
 * contradict the one the host's own responder (avahi, mDNSResponder) publishes.
 */
export const srvTarget = (instance: string): string => `${hostLabel(instance)}-cronstable.local`;

/** A bound TCP listener as the socket reports it (`server.address()`), and its scheme. */
export interface BoundTcp {
  scheme: 'http' | 'https';
  /** The bound address: `0.0.0.0`, `::`, `192.0.2.10`, `127.0.0.1`, `fe80::1`, ... */
  address: string;
  port: number;
}

export type AddressKind = 'wildcard' | 'loopback' | 'ipv4' | 'ipv6';

export function addressKind(address: string): AddressKind {
  const a = address.toLowerCase().replace(/^::ffff:(?=\d+\.)/, '');
  if (a === '0.0.0.0' || a === '::' || a === '') return 'wildcard';
  if (/^127\./.test(a) || a === '::1' || a === 'localhost') return 'loopback';
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(a)) return 'ipv4';
  return 'ipv6';
}

export type ListenerChoice =
  | { listener: BoundTcp; wildcard: boolean; ipv4: string | null }
  | { skip: string };

/**
 * The listener to advertise: the first LAN-reachable https one, else the first LAN-reachable http
 * one. Loopback binds are never published, and a specific IPv6 bind is skipped because only an A
 * record is published. `ipv4` is the bound address, or null for a wildcard bind (the caller looks up
 * the primary outbound IPv4). `skip` says why nothing qualifies, for the log.
 */
export function chooseListener(listeners: readonly BoundTcp[]): ListenerChoice {
  const reachable = listeners.filter((l) => {
    const kind = addressKind(l.address);
    return kind === 'wildcard' || kind === 'ipv4';
  });
  const pick = reachable.find((l) => l.scheme === 'https') ?? reachable.find((l) => l.scheme === 'http');
  if (pick) {
    const wildcard = addressKind(pick.address) === 'wildcard';
    return { listener: pick, wildcard, ipv4: wildcard ? null : pick.address.replace(/^::ffff:/i, '') };
  }
  if (listeners.length === 0) return { skip: 'no TCP web listener is bound' };
  const kinds = new Set(listeners.map((l) => addressKind(l.address)));
  if (kinds.size === 1 && kinds.has('loopback'))
    return { skip: 'every TCP web listener is bound to loopback, which the LAN cannot reach' };
  return {
    skip: 'no TCP web listener is reachable over IPv4 from the LAN (loopback and specific IPv6 binds are not advertised)',
  };
}

/** The primary outbound IPv4 among candidates, in preference order, ignoring loopback and blanks. */
export function firstLanIPv4(candidates: readonly (string | null | undefined)[]): string | null {
  for (const c of candidates) if (c && addressKind(c) === 'ipv4') return c;
  return null;
}

export interface Advert {
  instance: string;
  target: string;
  ipv4: string;
  port: number;
  scheme: 'http' | 'https';
  version: string;
}

/** The instance's full DNS-SD name. */
export const instanceFqdn = (instance: string): string => `${instance}.${SERVICE}`;

/** One resource record, in the shape the mDNS library encodes. */
export type MdnsRecord =
  | { name: string; type: 'PTR'; ttl: number; data: string }
  | {
      name: string;
      type: 'SRV';
      ttl: number;
      flush: true;
      data: { port: number; target: string; priority: number; weight: number };
    }
  | { name: string; type: 'TXT'; ttl: number; flush: true; data: string[] }
  | { name: string; type: 'A'; ttl: number; flush: true; data: string };

/**
 * The records of an advert, answers first: PTR service → instance, then SRV, TXT and the A record
 * of the target as additionals. With `ttl` 0 they are the goodbye that withdraws it (RFC 6762 §10.1).
 * The shared PTRs carry no cache-flush bit; the unique records do.
 */
export function advertRecords(
  a: Advert,
  ttl = RECORD_TTL,
): { answers: MdnsRecord[]; additionals: MdnsRecord[] } {
  const fqdn = instanceFqdn(a.instance);
  return {
    answers: [
      { name: SERVICE, type: 'PTR', ttl, data: fqdn },
      { name: SERVICES_META, type: 'PTR', ttl, data: SERVICE },
    ],
    additionals: [
      {
        name: fqdn,
        type: 'SRV',
        ttl,
        flush: true,
        data: { port: a.port, target: a.target, priority: 0, weight: 0 },
      },
      { name: fqdn, type: 'TXT', ttl, flush: true, data: [`v=${a.version}`, `scheme=${a.scheme}`] },
      { name: a.target, type: 'A', ttl, flush: true, data: a.ipv4 },
    ],
  };
}

export interface Question {
  name: string;
  type: string;
}

/**
 * The records that answer a query, or null when it asks nothing of ours. A question for the service
 * or the meta-service gets the PTR with the rest as additionals; one for the instance or the target
 * gets the matching records (ANY: all of that name).
 */
export function answerFor(
  a: Advert,
  questions: readonly Question[],
): { answers: MdnsRecord[]; additionals: MdnsRecord[] } | null {
  const all = advertRecords(a);
  const records = [...all.answers, ...all.additionals];
  const answers: MdnsRecord[] = [];
  for (const q of questions) {
    const name = q.name.toLowerCase().replace(/\.$/, '');
    for (const r of records) {
      if (r.name.toLowerCase() !== name || (q.type !== 'ANY' && q.type !== r.type)) continue;
      if (!answers.includes(r)) answers.push(r);
    }
  }
  if (answers.length === 0) return null;
  const additionals = answers.some((r) => r.type === 'PTR' && r.data !== SERVICE)
    ? all.additionals.filter((r) => !answers.includes(r))
    : answers.some((r) => r.type === 'SRV')
      ? all.additionals.filter((r) => r.type === 'A' && !answers.includes(r))
      : [];
  return { answers, additionals };
}
