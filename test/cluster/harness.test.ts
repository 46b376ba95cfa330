// The harness itself, on a fleet without a cluster section (spec 05 §2: every node runs every
// job): node processes, web ports, the shared ledger reader, kill/pause/restart, and the proxy.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Fleet } from '../../scripts/fleet/fleet.ts';
import { canBind, freePort } from '../../scripts/fleet/ports.ts';
import { jobsYaml, ledgerWindow, readmeDuplicates, secondFromNow, sleep, useFleet } from './harness.ts';
import { LinkProxy } from './proxy.ts';

describe.sequential('fleet harness (no cluster section)', () => {
  const t = useFleet({
    nodes: 3,
    backend: 'none',
    jobsYaml: jobsYaml([{ name: 'tick', policy: 'Leader' }]),
  });

  it('serves every node on its own port, /cluster disabled', async () => {
    const ports = new Set(t.fleet.nodes.map((n) => n.spec.webPort));
    expect(ports.size).toBe(3);
    for (const n of t.fleet.nodes) {
      const view = await n.cluster();
      expect(view).toEqual({ enabled: false, peers: [] });
    }
  });

  it('counts from the shared ledger: without clustering each slot runs on every node', async () => {
    const from = secondFromNow(300);
    const to = from + 1000;
    const report = await ledgerWindow(t.fleet, ['tick'], from, to);
    expect(report.expected).toBe(2);
    expect(report.once).toBe(0);
    expect(report.duplicates).toHaveLength(2);
    for (const d of report.duplicates)
      expect(d.split(' on ')[1]!.split(',').sort()).toEqual(['node-a', 'node-b', 'node-c']);
    expect(report.runners.tick).toEqual(['node-a', 'node-b', 'node-c']);
    // The README's query finds the same duplicates.
    const dups = readmeDuplicates(t.fleet).filter(
      (d) => Date.parse(d.scheduled_at) >= from && Date.parse(d.scheduled_at) <= to,
    );
    expect(dups).toHaveLength(2);
    for (const d of dups) expect(d.nodes.split(',').sort()).toEqual(['node-a', 'node-b', 'node-c']);
  });
});

describe('link proxy', () => {
  it('passes, refuses and black-holes one direction of a link', async () => {
    const echo = createServer((s) => s.pipe(s));
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    const port = (echo.address() as AddressInfo).port;
    const link = new LinkProxy('x', 'y', { host: '127.0.0.1', port });
    const addr = await link.listen('127.0.0.1');
    const [host, p] = addr.split(':') as [string, string];
    const roundTrip = (timeoutMs: number) =>
      new Promise<string>((resolve) => {
        const s = connect(Number(p), host, () => s.write('ping'));
        let got = '';
        const t = setTimeout(() => {
          s.destroy();
          resolve(`timeout:${got}`);
        }, timeoutMs);
        s.on('data', (d) => {
          got += d.toString();
          if (got === 'ping') {
            clearTimeout(t);
            s.destroy();
            resolve('ok');
          }
        });
        s.on('error', () => {
          clearTimeout(t);
          resolve('error');
        });
        s.on('close', () => {
          clearTimeout(t);
          resolve(got === 'ping' ? 'ok' : 'closed');
        });
      });
    try {
      expect(await roundTrip(2000)).toBe('ok');
      link.set('refuse');
      expect(['error', 'closed']).toContain(await roundTrip(2000));
      link.set('blackhole');
      expect(await roundTrip(500)).toBe('timeout:');
      link.set('pass');
      expect(await roundTrip(2000)).toBe('ok');
      expect(link.accepted).toBe(4);
    } finally {
      await link.close();
      echo.close();
      await sleep(10);
    }
  });
});

describe('freePort', () => {
  it('hands out distinct bindable ports below the kernel ephemeral range (no outgoing socket can take them)', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
    for (const p of ports) {
      expect(p).toBeGreaterThanOrEqual(15000);
      expect(p).toBeLessThan(low);
    }
    // Each is bindable now, and on another loopback address too.
    const srv = createServer();
    srv.listen(ports[0], '127.0.0.1');
    await once(srv, 'listening');
    srv.close();
    expect(await canBind('127.0.0.12', await freePort('127.0.0.12'))).toBe(true);
  });
});

describe('fixed ports', () => {
  it('a taken fixed port fails the start, or falls back to a free one when the caller allows it', async () => {
    const taken = await freePort();
    const srv = createServer();
    srv.listen(taken, '127.0.0.1');
    await once(srv, 'listening');
    try {
      const shape = {
        nodes: 1,
        backend: 'none' as const,
        webPortBase: taken,
        peerPort: 'free' as const,
        start: false,
      };
      await expect(Fleet.create(shape)).rejects.toThrow(
        `port 127.0.0.1:${taken} is in use (pick another --web-port)`,
      );
      const notes: string[] = [];
      const fleet = await Fleet.create({ ...shape, portFallback: (l) => notes.push(l) });
      try {
        expect(notes).toEqual([`node-a dashboard: 127.0.0.1:${taken} is in use, using a free port instead`]);
        const url = new URL(fleet.nodes[0]!.url);
        expect(Number(url.port)).not.toBe(taken);
        expect(await canBind('127.0.0.1', Number(url.port))).toBe(true);
      } finally {
        await fleet.close();
      }
    } finally {
      srv.close();
    }
  });
});

describe('a node whose web port another process took', () => {
  it('fails its start naming the port, instead of waiting on what answers there', async () => {
    const fleet = await Fleet.create({
      nodes: 1,
      backend: 'none',
      webPortBase: 'free',
      peerPort: 'free',
      start: false,
    });
    // Not ok, so the start keeps asking until the daemon's own log says it could not bind.
    const squatter = createHttpServer((_req, res) => res.writeHead(503).end());
    squatter.listen(fleet.nodes[0]!.spec.webPort, '127.0.0.1');
    await once(squatter, 'listening');
    try {
      await expect(fleet.nodes[0]!.start()).rejects.toThrow(`node-a could not bind ${fleet.nodes[0]!.url}: `);
    } finally {
      squatter.close();
      await fleet.close();
    }
  });
});
