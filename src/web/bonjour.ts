// `web.bonjour` (spec 10 §6.6): while the web API runs, publish `_cronstable._tcp.local.` over
// multicast DNS so a phone or `avahi-browse` on the LAN finds it. The mDNS library is loaded only
// here, and only when the section is on. Nothing in this file is fatal: a failure logs `bonjour: …`
// and the web API carries on. Every mDNS call is bounded, so a stuck socket cannot hold a reload
// or the shutdown.
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import type { MulticastDNS } from 'multicast-dns';
import type { WebSection } from '../config/file-schema.ts';
import { bonjourSettings } from '../config/web-bonjour.ts';
import { errorText } from '../util/errors.ts';
import type { Logger } from '../util/log.ts';
import {
  type Advert,
  advertRecords,
  answerFor,
  type BoundTcp,
  chooseListener,
  firstLanIPv4,
  instanceName,
  type MdnsRecord,
  srvTarget,
} from './bonjour-plan.ts';
import type { BoundListener } from './listen.ts';

/** The bound on each mDNS call (spec 10 §6.6). */
export const MDNS_CALL_MS = 10_000;
/** RFC 6762 §8.3: announce at least twice, one second apart. */
const ANNOUNCE_GAP_MS = 1_000;
const MDNS_PORT = 5353;

export interface BonjourOptions {
  /** `web.bonjour.name`, or null for the hostname. */
  name: string | null;
  listeners: readonly BoundTcp[];
  version: string;
  log: Logger;
  /** Overrides for tests; default the machine's. */
  hostname?: string;
  primaryIPv4?: () => Promise<string | null>;
}

export interface Bonjour {
  /** Withdraws the advert (goodbye records, TTL 0) and closes the socket. Never throws. */
  stop(): Promise<void>;
}

/**
 * The web server's hook: when `web.bonjour` is on, starts advertising the bound listeners in the
 * background (the web API never waits on mDNS) and returns the handle's promise; null when off.
 */
export function advertiseWeb(
  web: WebSection,
  listeners: readonly BoundListener[],
  version: string,
  log: Logger,
): Promise<Bonjour | null> | null {
  const settings = bonjourSettings(web);
  if (settings === null) return null;
  const tcp: BoundTcp[] = [];
  for (const l of listeners) {
    const a = l.socketPath === null ? (l.server.address() as AddressInfo | null) : null;
    if (a && typeof a === 'object')
      tcp.push({ scheme: l.tls ? 'https' : 'http', address: a.address, port: a.port });
  }
  return startBonjour({ name: settings.name, listeners: tcp, version, log }).catch((e) => {
    log.warning(`bonjour: not advertising: ${errorText(e)}`);
    return null;
  });
}

/** Rejects after `ms` with `what`, so a hung call becomes a logged failure. */
function bounded<T>(what: string, p: Promise<T>, ms = MDNS_CALL_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
    timer.unref?.();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The IPv4 address this host reaches the world from: the source address the kernel picks for a
 * route to a public address (a UDP connect sends no packet), else the first non-loopback IPv4 of
 * any interface (a LAN with no default route).
 */
export async function primaryOutboundIPv4(): Promise<string | null> {
  const routed = await bounded(
    'finding the primary IPv4 address',
    new Promise<string | null>((resolve) => {
      const s = createSocket('udp4');
      const done = (v: string | null) => {
        try {
          s.close();
        } catch {
          // already closed
        }
        resolve(v);
      };
      s.on('error', () => done(null));
      try {
        // Any public address will do: only the route lookup matters.
        s.connect(53, '8.8.8.8', () => {
          try {
            done(s.address().address);
          } catch {
            done(null);
          }
        });
      } catch {
        done(null);
      }
    }),
  ).catch(() => null);
  const interfaces = Object.values(networkInterfaces())
    .flat()
    .filter((i) => i && i.family === 'IPv4' && !i.internal)
    .map((i) => i?.address);
  return firstLanIPv4([routed, ...interfaces]);
}

/**
 * Starts advertising, or logs why it does not. Resolves once the first announcement went out (or
 * failed); the returned handle withdraws it.
 */
export async function startBonjour(opts: BonjourOptions): Promise<Bonjour | null> {
  const { log } = opts;
  const choice = chooseListener(opts.listeners);
  if ('skip' in choice) {
    log.info(`bonjour: not advertising _cronstable._tcp: ${choice.skip}`);
    return null;
  }
  const ipv4 = choice.ipv4 ?? (await (opts.primaryIPv4 ?? primaryOutboundIPv4)());
  if (ipv4 === null) {
    log.warning(
      `bonjour: not advertising _cronstable._tcp: ${choice.listener.scheme} listener on ${choice.listener.address}:${choice.listener.port} binds every address, but this host has no non-loopback IPv4 address`,
    );
    return null;
  }
  const instance = instanceName(opts.name, opts.hostname ?? hostname());
  const advert: Advert = {
    instance,
    target: srvTarget(instance),
    ipv4,
    port: choice.listener.port,
    scheme: choice.listener.scheme,
    version: opts.version,
  };
  let mdns: MulticastDNS;
  try {
    mdns = await openMdns(log);
  } catch (e) {
    log.warning(`bonjour: could not open the mDNS socket, so not advertising: ${errorText(e)}`);
    return null;
  }
  // A wildcard bind follows the host's address: the library reports each new interface address
  // (it rejoins the group there), which is when a DHCP change or a new link shows up.
  const follow = choice.wildcard ? (opts.primaryIPv4 ?? primaryOutboundIPv4) : null;
  return new Advertiser(mdns, advert, log, follow).start();
}

/**
 * Opens the mDNS socket. One error listener stays for the socket's life: the library can emit a
 * bind failure twice (from the socket and from its bind callback), and an `error` event with no
 * listener would throw out of the daemon.
 */
async function openMdns(log: Logger): Promise<MulticastDNS> {
  const { default: makeMdns } = await import('multicast-dns');
  const mdns = makeMdns({ port: MDNS_PORT });
  let failBind: ((e: Error) => void) | null = null;
  mdns.on('error', (e: Error) => {
    if (failBind) failBind(e);
    else log.warning(`bonjour: mDNS socket error: ${errorText(e)}`);
  });
  await bounded(
    'binding the mDNS socket',
    new Promise<void>((resolve, reject) => {
      failBind = reject;
      mdns.once('ready', resolve);
    }),
  )
    .catch((e) => {
      mdns.destroy();
      throw e;
    })
    .finally(() => {
      failBind = null;
    });
  return mdns;
}

class Advertiser implements Bonjour {
  private stopped: Promise<void> | null = null;
  private announceTimer: NodeJS.Timeout | null = null;
  private rechecking = false;

  constructor(
    private readonly mdns: MulticastDNS,
    private advert: Advert,
    private readonly log: Logger,
    private readonly follow: (() => Promise<string | null>) | null,
  ) {}

  async start(): Promise<Bonjour> {
    const { mdns, log } = this;
    mdns.on('warning', (e: Error) => log.debug(`bonjour: ${errorText(e)}`));
    mdns.on('query', (query, rinfo) => {
      const reply = answerFor(this.advert, query.questions ?? []);
      if (!reply) return;
      // A one-shot querier (not on port 5353) gets a unicast reply carrying its id and questions
      // (RFC 6762 §6.7); everyone else the multicast answer every cache on the link can use.
      const legacy = rinfo.port !== MDNS_PORT;
      const packet = legacy ? { id: query.id, questions: query.questions, ...reply } : reply;
      void this.send(packet, legacy ? { address: rinfo.address, port: rinfo.port } : undefined);
    });
    if (this.follow) mdns.on('networkInterface', () => void this.recheck());
    await this.announce();
    const a = this.advert;
    log.info(
      `bonjour: advertising ${a.instance}._cronstable._tcp.local. at ${a.target}. ${a.ipv4}:${a.port} (${a.scheme})`,
    );
    return this;
  }

  /** Sends the records now and once more a second later (RFC 6762 §8.3). */
  private async announce(): Promise<void> {
    if (this.announceTimer) clearTimeout(this.announceTimer);
    await this.send(advertRecords(this.advert));
    // Never after the goodbye: a stop may land while the first send is in flight.
    const again = () => (this.stopped ? undefined : void this.send(advertRecords(this.advert)));
    this.announceTimer = this.stopped ? null : setTimeout(again, ANNOUNCE_GAP_MS);
    this.announceTimer?.unref();
  }

  /** Re-announces at the new address when the host's primary IPv4 moved; the old A record goes. */
  private async recheck(): Promise<void> {
    if (this.rechecking || this.stopped || !this.follow) return;
    this.rechecking = true;
    try {
      const ipv4 = await this.follow().catch(() => null);
      const old = this.advert;
      if (ipv4 === null || ipv4 === old.ipv4 || this.stopped) return;
      const bye = advertRecords(old, 0).additionals.filter((r) => r.type === 'A');
      await this.send({ answers: bye, additionals: [] });
      this.advert = { ...old, ipv4 };
      await this.announce();
      this.log.info(
        `bonjour: this host's address changed from ${old.ipv4} to ${ipv4}; re-announced ${old.target}.`,
      );
    } finally {
      this.rechecking = false;
    }
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      if (this.announceTimer) clearTimeout(this.announceTimer);
      await this.send(advertRecords(this.advert, 0));
      this.log.info(`bonjour: withdrew ${this.advert.instance}._cronstable._tcp.local.`);
      await bounded(
        'closing the mDNS socket',
        new Promise<void>((resolve) => this.mdns.destroy(() => resolve())),
      ).catch((e) => this.log.warning(`bonjour: ${errorText(e)}`));
    })();
    return this.stopped;
  }

  /** Sends one response; a failure or timeout is logged, never thrown. */
  private send(
    packet: { answers: MdnsRecord[]; additionals: MdnsRecord[]; id?: number; questions?: unknown[] },
    to?: { address: string; port: number },
  ): Promise<void> {
    return bounded(
      'sending an mDNS response',
      new Promise<void>((resolve, reject) => {
        const cb = (e?: Error | null) => (e ? reject(e) : resolve());
        // The library's types want its own Answer union; MdnsRecord is a subset of it.
        const res = packet as unknown as Parameters<MulticastDNS['respond']>[0];
        if (to) this.mdns.respond(res, to, cb);
        else this.mdns.respond(res, cb);
      }),
    ).catch((e) => this.log.warning(`bonjour: could not send the mDNS response: ${errorText(e)}`));
  }
}
