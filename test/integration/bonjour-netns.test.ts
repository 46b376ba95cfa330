// Spec 10 §6.6 (issue 35), `web.bonjour` on a real daemon and a real mDNS browser, both inside a
// network namespace this file makes (test/helpers/netns.ts), so no multicast packet ever reaches
// the machine's own interfaces. The browser (fixtures/mdns-browse.mjs) runs the same mDNS library
// and finds the daemon's instance name, address, port and TXT, sees the advert replaced on a
// reload that changes the name and listeners, and withdrawn on SIGTERM. A daemon whose listeners
// are all loopback advertises nothing and says why. The Bun standalone binary advertises too, and
// a wildcard bind re-announces when the host's primary address moves. An mDNS socket that cannot
// be opened is logged and the web API serves on. Without root, `ip` or netns support the tests
// are skipped, named with the reason.
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { programEntry, ROOT } from '../helpers/built.ts';
import { stopChild } from '../helpers/child.ts';
import { makeNetns, NETNS_ADDRESS, type Netns } from '../helpers/netns.ts';
import { hasOpenssl, mintPki } from '../helpers/pki.ts';
import { standaloneBinary } from '../helpers/standalone-binary.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

const ENTRY = programEntry();
/** A second address the namespace's host gains mid-test. */
const MOVED_ADDRESS = '192.0.2.20';
const BROWSER = join(import.meta.dirname, 'fixtures', 'mdns-browse.mjs');
const JOBS = 'jobs:\n  - name: tick\n    command: "echo hi"\n    schedule: "0 0 1 1 *"\n';
/** The namespace is fresh, so any port is free in it. */
const PORT = { loop: 18080, http: 18081, https: 18443, bun: 18082, mover: 18083 };

interface BrowseEvent {
  event: 'ready' | 'up' | 'moved' | 'down' | 'seen';
  instance?: string;
  target?: string;
  address?: string;
  port?: number;
  txt?: Record<string, string>;
}

const netns = makeNetns();
const skipReason = 'reason' in netns ? netns.reason : null;
const ns = (skipReason === null ? netns : null) as Netns | null;

const children: ChildProcess[] = [];
/** The processes a test started: stopped after it, so a retry finds its ports free. */
const perTest: ChildProcess[] = [];
let browser: ChildProcess;
const events: BrowseEvent[] = [];
let browserErr = '';

afterAll(async () => {
  for (const c of [...perTest, ...children]) await stopChild(c);
  ns?.remove();
});

afterEach(async () => {
  for (const c of perTest.splice(0)) await stopChild(c);
});
/** Where the current test's browser events begin (a retry must not match its first try's). */
let mark = 0;
beforeEach(() => {
  mark = events.length;
});

/** Resolves with the first browser event matching `pred`, failing with what the browser saw. */
function eventFor(what: string, pred: (e: BrowseEvent) => boolean, timeoutMs = 30_000): Promise<BrowseEvent> {
  return until(what, timeoutMs, async () => {
    if (browser.exitCode !== null) throw new Error(`the browser exited: ${browserErr}`);
    return events.slice(mark).find(pred) ?? null;
  }).catch((e: Error) => {
    throw new Error(`${e.message}\nbrowser saw: ${events.map((x) => JSON.stringify(x)).join('\n')}`);
  });
}

/**
 * Starts the daemon (the Node bundle, or `command`) inside the namespace (or `where`) on a config
 * directory; `logs()` is all it printed.
 */
function daemon(
  dir: string,
  command = [process.execPath, ...ENTRY],
  where = ns!,
): { child: ChildProcess; logs: () => string } {
  let out = '';
  const child = where.spawn([...command, '-c', dir], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const s of [child.stdout!, child.stderr!])
    s.on('data', (c: Buffer) => {
      out += c.toString();
    });
  perTest.push(child);
  return { child, logs: () => out };
}

const logged = (d: { child: ChildProcess; logs: () => string }, text: string, what: string) =>
  until(what, 60_000, async () => {
    if (d.logs().includes(text)) return true;
    if (d.child.exitCode !== null) throw new Error(`the daemon exited: ${d.logs()}`);
    return null;
  }).catch((e: Error) => {
    throw new Error(`${e.message}\ndaemon log:\n${d.logs()}`);
  });

/** GET inside the namespace (the test process itself lives on the host's network): the body. */
function getInside(url: string, where = ns!): string {
  const script = `const r = await fetch(${JSON.stringify(url)}); process.stdout.write(await r.text())`;
  const r = where.run([process.execPath, '--input-type=module', '-e', script]);
  if (r.status !== 0) throw new Error(`GET ${url} inside the namespace failed: ${r.stderr}`);
  return r.stdout;
}

describe.skipIf(skipReason !== null)('web.bonjour inside a private network namespace (spec 10 §6.6)', () => {
  beforeAll(async () => {
    browser = ns!.spawn([process.execPath, BROWSER], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(browser);
    let pending = '';
    browser.stdout!.on('data', (c: Buffer) => {
      pending += c.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const l of lines) if (l.trim()) events.push(JSON.parse(l) as BrowseEvent);
    });
    browser.stderr!.on('data', (c: Buffer) => {
      browserErr += c.toString();
    });
    await eventFor('the browser to bind the mDNS port', (e) => e.event === 'ready');
  });

  it('a daemon whose listeners are all loopback advertises nothing, and logs why', async () => {
    const dir = writeTree(
      {
        'cronstable.yaml': `${JOBS}web:\n  listen:\n    - http://127.0.0.1:${PORT.loop}\n  bonjour:\n    name: loop-only\n`,
      },
      true,
    );
    const d = daemon(dir);
    await logged(
      d,
      'bonjour: not advertising _cronstable._tcp: every TCP web listener is bound to loopback, which the LAN cannot reach',
      'the loopback daemon to say why it does not advertise',
    );
    await logged(d, 'cronstable started', 'the loopback daemon to start');
    await stopChild(d.child);
    expect(d.logs()).not.toContain('bonjour: advertising');
    // The browser asks once a second throughout the next test; it must never hear of this name.
  });

  it('is found with its name, address, port and TXT, re-registered on reload, withdrawn on SIGTERM', async () => {
    const dir = writeTree({}, true);
    const yaml = (listen: string[], name: string, extra = '') =>
      `${JOBS}web:\n  listen:\n${listen.map((l) => `    - ${l}\n`).join('')}  bonjour:\n    name: ${name}\n${extra}`;
    // A wildcard http bind: the address published is the namespace's one LAN IPv4.
    writeFileSync(join(dir, 'cronstable.yaml'), yaml([`http://0.0.0.0:${PORT.http}`], '"Build Box.lab"'));
    const d = daemon(dir);

    const up = await eventFor(
      'the advert of Build Box-lab',
      (e) => e.event === 'up' && e.instance === 'Build Box-lab',
    );
    // The advertised address and port serve the daemon; TXT `v` is the version it reports there.
    const version = getInside(`http://${NETNS_ADDRESS}:${PORT.http}/version`).trim();
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(up).toEqual({
      event: 'up',
      instance: 'Build Box-lab',
      target: 'Build-Box-lab-cronstable.local',
      address: NETNS_ADDRESS,
      port: PORT.http,
      txt: { v: version, scheme: 'http' },
    });
    expect(d.logs()).toContain(
      `bonjour: advertising Build Box-lab._cronstable._tcp.local. at Build-Box-lab-cronstable.local. ${NETNS_ADDRESS}:${PORT.http} (http)`,
    );

    if (hasOpenssl) {
      // A reload that changes the name and adds an https listener: the old advert goes, the new one
      // publishes the https listener (preferred over http), at the address it binds.
      const pki = mintPki(writeTree({}, true));
      writeFileSync(
        join(dir, 'cronstable.yaml'),
        yaml(
          [`http://0.0.0.0:${PORT.http}`, `https://${NETNS_ADDRESS}:${PORT.https}`],
          'second',
          `  tls:\n    cert: ${pki.cert}\n    key: ${pki.key}\n`,
        ),
      );
      d.child.kill('SIGHUP');
      await eventFor(
        'the old advert withdrawn on reload',
        (e) => e.event === 'down' && e.instance === 'Build Box-lab',
      );
      const second = await eventFor('the new advert', (e) => e.event === 'up' && e.instance === 'second');
      expect(second).toMatchObject({
        target: 'second-cronstable.local',
        address: NETNS_ADDRESS,
        port: PORT.https,
        txt: { v: version, scheme: 'https' },
      });
    }
    const name = hasOpenssl ? 'second' : 'Build Box-lab';

    const exited = new Promise((r) => d.child.once('exit', r));
    d.child.kill('SIGTERM');
    await eventFor(`the goodbye of ${name} on SIGTERM`, (e) => e.event === 'down' && e.instance === name);
    await exited;
    expect(d.logs()).toContain(`bonjour: withdrew ${name}._cronstable._tcp.local.`);
    expect(events.some((e) => e.instance === 'loop-only')).toBe(false);
  });

  it('the Bun standalone binary advertises and withdraws the same way', async () => {
    // Built as `npm run build:binary` builds it (shared with the CLI and package tests).
    const binary = standaloneBinary();
    const dir = writeTree(
      {
        'cronstable.yaml': `${JOBS}web:\n  listen:\n    - http://0.0.0.0:${PORT.bun}\n  bonjour:\n    name: bun box\n`,
      },
      true,
    );
    const d = daemon(dir, [binary]);
    const up = await eventFor(
      'the advert of the Bun binary',
      (e) => e.event === 'up' && e.instance === 'bun box',
    );
    expect(up).toMatchObject({ target: 'bun-box-cronstable.local', address: NETNS_ADDRESS, port: PORT.bun });
    expect(up.txt).toEqual({ v: expect.stringMatching(/^\d+\.\d+\.\d+/), scheme: 'http' });
    d.child.kill('SIGTERM');
    await eventFor('the goodbye of the Bun binary', (e) => e.event === 'down' && e.instance === 'bun box');
  }, 300_000);

  it('a wildcard bind follows the host to a new primary address', async () => {
    const dir = writeTree(
      {
        'cronstable.yaml': `${JOBS}web:\n  listen:\n    - http://0.0.0.0:${PORT.mover}\n  bonjour:\n    name: mover\n`,
      },
      true,
    );
    const d = daemon(dir);
    const up = await eventFor('the advert of mover', (e) => e.event === 'up' && e.instance === 'mover');
    expect(up.address).toBe(NETNS_ADDRESS);
    // The host gains an address with a default route through it, as after a DHCP lease: the
    // primary outbound IPv4 is now that one. Undone afterwards, for the tests after this one.
    const ipIn = (...args: string[]) => {
      const r = ns!.run(['ip', ...args]);
      expect(r.status, r.stderr).toBe(0);
    };
    ipIn('addr', 'add', `${MOVED_ADDRESS}/32`, 'dev', 'csb0');
    try {
      ipIn('route', 'add', 'default', 'dev', 'csb0', 'src', MOVED_ADDRESS);
      const moved = await eventFor(
        'mover re-announced at the new address',
        (e) => e.event === 'moved' && e.instance === 'mover',
      );
      expect(moved).toEqual({ event: 'moved', instance: 'mover', address: MOVED_ADDRESS });
      expect(d.logs()).toContain(
        `bonjour: this host's address changed from ${NETNS_ADDRESS} to ${MOVED_ADDRESS}; re-announced mover-cronstable.local.`,
      );
    } finally {
      ns!.run(['ip', 'route', 'del', 'default']);
      ns!.run(['ip', 'addr', 'del', `${MOVED_ADDRESS}/32`, 'dev', 'csb0']);
    }
    await stopChild(d.child);
  });

  it('an mDNS socket it cannot open is logged, never fatal: the web API serves on', async () => {
    // A namespace of its own, where another program holds UDP 5353 without SO_REUSEADDR.
    const other = makeNetns();
    if ('reason' in other) throw new Error(other.reason);
    try {
      const blocker = other.spawn(
        [
          process.execPath,
          '-e',
          "require('node:dgram').createSocket('udp4').bind(5353, () => console.log('bound'))",
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      perTest.push(blocker);
      let said = '';
      blocker.stdout!.on('data', (c: Buffer) => {
        said += c.toString();
      });
      await until('the blocker to hold UDP 5353', 30_000, async () => (said.includes('bound') ? true : null));
      const dir = writeTree(
        { 'cronstable.yaml': `${JOBS}web:\n  listen:\n    - http://0.0.0.0:${PORT.http}\n  bonjour: true\n` },
        true,
      );
      const d = daemon(dir, undefined, other);
      await logged(
        d,
        'bonjour: could not open the mDNS socket, so not advertising: ',
        'the bind failure logged',
      );
      expect(d.logs()).toContain('EADDRINUSE');
      expect(getInside(`http://${NETNS_ADDRESS}:${PORT.http}/version`, other).trim()).toMatch(
        /^\d+\.\d+\.\d+/,
      );
      const exited = new Promise<number | null>((r) => d.child.once('exit', (code) => r(code)));
      d.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      await stopChild(blocker);
    } finally {
      other.remove();
    }
  });
});

if (skipReason !== null)
  describe('web.bonjour inside a private network namespace', () => {
    it.skip(`skipped: ${skipReason}; multicast is never sent on the host's own interfaces`, () => {});
  });
