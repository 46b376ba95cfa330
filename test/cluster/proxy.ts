// A TCP fault-injection proxy per directed link (spec 05 §14 "Fault-injection proxy"): node i
// reaches node j's `/peer` listener through its own proxy, which listens on j's loopback alias
// (so j's certificate, IP SAN included, still verifies) and can pass, refuse or black-hole
// traffic. Cutting i->j leaves j->i alone: one-way links come for free.

import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { NodeSpec } from '../../scripts/fleet/config.ts';

/** pass: forward bytes. refuse: accept and reset at once (fast "unreachable"). blackhole: accept
 * and never answer (the client times out after its connectTimeout). */
export type LinkMode = 'pass' | 'refuse' | 'blackhole';

export class LinkProxy {
  mode: LinkMode = 'pass';
  /** Connections accepted so far (any mode). */
  accepted = 0;
  private server: Server | null = null;
  private readonly open = new Set<Socket>();
  private addr = '';

  constructor(
    readonly from: string,
    readonly to: string,
    private readonly target: { host: string; port: number },
  ) {}

  /** Listens on `host` (an OS-chosen port); returns `host:port` for the peer list. */
  async listen(host: string): Promise<string> {
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, resolve);
    });
    this.server = server;
    this.addr = `${host}:${(server.address() as AddressInfo).port}`;
    return this.addr;
  }

  get address(): string {
    return this.addr;
  }

  private accept(client: Socket): void {
    this.accepted++;
    this.open.add(client);
    client.once('close', () => this.open.delete(client));
    client.on('error', () => {});
    if (this.mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    if (this.mode === 'blackhole') return; // held open, never forwarded
    const upstream = connect(this.target.port, this.target.host);
    this.open.add(upstream);
    upstream.once('close', () => {
      this.open.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.once('close', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Changes the mode; leaving `pass` drops the link's live (keep-alive) connections too. */
  set(mode: LinkMode): void {
    this.mode = mode;
    if (mode !== 'pass') for (const s of this.open) s.destroy();
  }

  async close(): Promise<void> {
    for (const s of this.open) s.destroy();
    const server = this.server;
    if (server) await new Promise((r) => server.close(r));
  }
}

/** Every directed link of a fleet; `peerHost` goes into `Fleet.create({ peerHost })`. */
export class ProxyMesh {
  readonly links = new Map<string, LinkProxy>();

  peerHost = async (from: NodeSpec, to: NodeSpec): Promise<string> => {
    const link = new LinkProxy(from.id, to.id, { host: to.ip, port: to.peerPort });
    this.links.set(`${from.id}->${to.id}`, link);
    return link.listen(to.ip);
  };

  link(from: string, to: string): LinkProxy {
    const l = this.links.get(`${from}->${to}`);
    if (!l) throw new Error(`no link ${from}->${to}`);
    return l;
  }

  /** Cuts traffic between the two groups both ways (or only `a`->`b` when `oneWay`). */
  partition(a: string[], b: string[], mode: LinkMode = 'refuse', oneWay = false): void {
    for (const x of a)
      for (const y of b) {
        this.link(x, y).set(mode);
        if (!oneWay) this.link(y, x).set(mode);
      }
  }

  heal(): void {
    for (const l of this.links.values()) l.set('pass');
  }

  async close(): Promise<void> {
    await Promise.all([...this.links.values()].map((l) => l.close()));
  }
}
