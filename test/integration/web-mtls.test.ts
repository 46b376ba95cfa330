// TLS on the web listener and its clients (spec 10 §3.1-§3.4) on a real daemon: Setup X of spec 10 §8 with
// a throwaway CA minted by openssl at run time (nothing checked in). A client without a
// certificate must fail the TLS handshake itself, never get an HTTP status.
import { X509Certificate } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { suiteMcpDaemon } from '../helpers/mcp.ts';
import { hasOpenssl, mintPki, signLeaf } from '../helpers/pki.ts';
import { writeTree } from '../helpers/tmp.ts';
import { TuiPty } from '../helpers/tui-pty.ts';
import { until } from '../helpers/until.ts';
import { baseEnv, cli } from './fixtures/jobcli-kit.ts';

const DIR = writeTree({ 'keep.txt': '' }, true);
const PKI = hasOpenssl ? mintPki(DIR) : null;
const Q = await freePort();

function tlsWeb(withClientCa: boolean): string[] {
  const pki = PKI!;
  return [
    `  - https://0.0.0.0:${Q}`,
    'tls:',
    `  cert: ${pki.cert}`,
    `  key: ${pki.key}`,
    ...(withClientCa ? [`  clientCa: ${pki.ca}`] : []),
  ];
}

/** GET over https; resolves with the status, or rejects with the handshake's error. */
function get(path: string, opts: { cert?: string; key?: string; agent?: Agent }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `https://127.0.0.1:${Q}${path}`,
      {
        ca: readFileSync(PKI!.ca),
        ...(opts.cert ? { cert: readFileSync(opts.cert), key: readFileSync(opts.key!) } : {}),
        ...(opts.agent ? { agent: opts.agent } : {}),
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe.skipIf(!hasOpenssl)('spec 10 §3 TLS on Setup X (real daemon, real handshakes)', () => {
  const d = suiteMcpDaemon(() => ({ jobs: undefined, mcp: ['enabled: true'], web: tlsWeb(true) }));

  it('v35: Setup X validates (MCP on a routable listener behind mutual TLS); without clientCa it is refused', async () => {
    const cfg = readFileSync(join(d.dir, 'cronstable.yaml'), 'utf8');
    const ok = await cli(['-v', '-c', join(d.dir, 'cronstable.yaml')], baseEnv());
    expect(ok.code, ok.out + ok.err).toBe(0);
    const open = writeTree({ 'cronstable.yaml': cfg.replace(/^ +clientCa: .*\n/m, '') }, true);
    const refused = await cli(['-v', '-c', join(open, 'cronstable.yaml')], baseEnv());
    expect(refused.code).not.toBe(0);
    expect(refused.out + refused.err).toContain(`https://0.0.0.0:${Q}`);
  });

  it('v36: a client with the CA but no certificate fails the handshake; with cert and key /version is 200', async () => {
    const failure = await get('/version', {}).then(
      (status) => ({ status }),
      (e: NodeJS.ErrnoException) => ({ error: e }),
    );
    expect('status' in failure, 'an HTTP status means the handshake passed').toBe(false);
    expect((failure as { error: NodeJS.ErrnoException }).error.code ?? '').toMatch(
      /ECONNRESET|ERR_SSL|EPIPE|EPROTO/,
    );
    expect(await get('/version', { cert: PKI!.clientCert, key: PKI!.clientKey })).toBe(200);
    // The plaintext loopback listener of the same config is unaffected.
    expect((await fetch(`${d.base}/version`)).status).toBe(200);
  });

  const mcpCheck = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    cli(['mcp', '--url', `https://127.0.0.1:${Q}`, '--check', ...args], env);
  const endpoint = () => `https://127.0.0.1:${Q}/mcp`;

  it('v37: mcp --check without --cacert fails TLS verification and says what to pass', async () => {
    const r = await mcpCheck([]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      new RegExp(`^mcp check: TLS verification failed for the cronstable MCP endpoint at ${endpoint()}: `),
    );
    expect(r.err).toContain(
      "(pass --cacert with the CA that signed the listener's certificate, or --insecure to skip verification entirely)",
    );
  });

  it('v38: a key without its certificate, and a CA file that is not there, are refused before any request', async () => {
    const lone = await mcpCheck(['--client-key', 'k.pem']);
    expect(lone.code).toBe(1);
    expect(lone.err).toBe(
      'mcp check: cannot use the given TLS material (--client-key=k.pem): a client key needs its certificate: pass both, or neither\n',
    );
    const missing = await mcpCheck(['--cacert', '/nonexistent']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(
      /^mcp check: cannot use the given TLS material \(--cacert=\/nonexistent\): .*ENOENT/,
    );
    // The bridge itself (no --check) says the same without the prefix; all material is listed, in order.
    const pki = PKI!;
    const bad = await cli(
      ['mcp', '--url', `https://127.0.0.1:${Q}`, '--client-cert', pki.ca, '--client-key', pki.clientKey],
      { CRONSTABLE_WEB_CACERT: pki.ca },
      { stdin: '' },
    );
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(
      new RegExp(
        `^cannot use the given TLS material \\(--cacert=${pki.ca}, --client-cert=${pki.ca}, --client-key=${pki.clientKey}\\): `,
      ),
    );
  });

  it('v39: CA, certificate and key pass the check; CRONSTABLE_WEB_INSECURE=yes passes with its warning', async () => {
    const pki = PKI!;
    // The reference lists 18 tools here; ours lists what tools/list on the plaintext listener says.
    const listed = (await d.rpc('tools/list')).result.tools.length;
    const ok = await mcpCheck([
      '--cacert',
      pki.ca,
      '--client-cert',
      pki.clientCert,
      '--client-key',
      pki.clientKey,
    ]);
    expect(ok.err).toBe(`mcp check: ok - protocol 2025-11-25, ${listed} tool(s) at ${endpoint()}\n`);
    expect(ok.code).toBe(0);
    // The environment variables stand in for the flags; an empty one counts as unset.
    const insecure = await mcpCheck([], {
      CRONSTABLE_WEB_INSECURE: 'yes',
      CRONSTABLE_WEB_CLIENT_CERT: pki.clientCert,
      CRONSTABLE_WEB_CLIENT_KEY: pki.clientKey,
      CRONSTABLE_WEB_CACERT: '',
    });
    expect(insecure.code).toBe(0);
    expect(insecure.err).toBe(
      `warning: --insecure disables TLS verification; the bearer token is still sent, so it goes to whoever answers\nmcp check: ok - protocol 2025-11-25, ${listed} tool(s) at ${endpoint()}\n`,
    );
    // Do better: --insecure beside --cacert says the CA goes unused.
    const both = await mcpCheck([
      '--insecure',
      '--cacert',
      pki.ca,
      '--client-cert',
      pki.clientCert,
      '--client-key',
      pki.clientKey,
    ]);
    expect(both.code).toBe(0);
    expect(both.err).toContain(`warning: --insecure is given, so --cacert=${pki.ca} is not used`);
  });

  it('do better: a trusted listener that hangs up on a client without a certificate is named as such, in --check and the bridge', async () => {
    const pki = PKI!;
    const r = await mcpCheck(['--cacert', pki.ca]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `mcp check: the listener at ${endpoint()} closed the connection; it may require a client certificate (pass --client-cert and --client-key)\n`,
    );
    // The bridge answers the request with a -32001 error frame carrying the TLS text.
    const untrusted = await cli(
      ['mcp', '--url', `https://127.0.0.1:${Q}`],
      {},
      {
        stdin: '{"jsonrpc":"2.0","id":7,"method":"ping"}\n',
      },
    );
    const frame = JSON.parse(untrusted.out.trim());
    expect(frame).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32001 } });
    expect(frame.error.message).toMatch(/^TLS verification failed for the cronstable MCP endpoint at /);
  });

  it('v40: cronstable tui --client-key alone, on a tty, exits 2 naming the flag', async () => {
    const t = new TuiPty(['--url', `https://127.0.0.1:${Q}`, '--client-key', 'k.pem'], { cols: 200 });
    const { exitCode } = await t.exitWithin(10_000);
    expect(exitCode).toBe(2);
    expect(t.raw).toContain(
      'cronstable tui: a client key needs its certificate: pass both, or neither (--client-key=k.pem)',
    );
  });

  it('the TUI over mutual TLS: with CA, certificate and key it shows the jobs; without a CA it names the TLS failure', async () => {
    const pki = PKI!;
    const home = writeTree({ 'keep.txt': '' }, true);
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), LANG: 'C.UTF-8' };
    const url = `https://127.0.0.1:${Q}`;
    const good = new TuiPty(['--url', url, '--no-boot'], {
      env: {
        ...env,
        CRONSTABLE_WEB_CACERT: pki.ca,
        CRONSTABLE_WEB_CLIENT_CERT: pki.clientCert,
        CRONSTABLE_WEB_CLIENT_KEY: pki.clientKey,
      },
    });
    try {
      await good.waitFor(/nightly/, 15_000);
    } finally {
      good.kill('SIGKILL');
    }
    const bad = new TuiPty(['--url', url, '--no-boot'], { env });
    try {
      await bad.waitFor(/TLS verification failed/, 15_000);
    } finally {
      bad.kill('SIGKILL');
    }
  });

  it('v41: a garbage certificate on SIGHUP keeps the running one; a valid new one is served, live connections kept', async () => {
    const pki = PKI!;
    const client = { cert: pki.clientCert, key: pki.clientKey };
    // A keep-alive connection opened before the rotation must survive it (setSecureContext, no restart).
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect(await get('/version', { ...client, agent })).toBe(200);
    const sockets = () => Object.values(agent.freeSockets).flat();
    await until('the keep-alive socket to be pooled', 5000, async () =>
      sockets().length === 1 ? true : null,
    );
    const before = sockets()[0];

    const original = readFileSync(pki.cert);
    writeFileSync(pki.cert, 'not a certificate\n');
    d.daemon.child.kill('SIGHUP');
    await until('the not-yet-loadable warning', 10_000, async () =>
      d.daemon.logs().includes('web: new TLS material is not yet loadable (a partial/half-written rotation')
        ? true
        : null,
    );
    expect(await get('/version', client)).toBe(200);
    expect(await servedFingerprint()).toBe(new X509Certificate(original).fingerprint256);

    const next = signLeaf(pki.dir, 'server2', 'subjectAltName=IP:127.0.0.1,DNS:localhost');
    copyFileSync(next.key, pki.key);
    copyFileSync(next.cert, pki.cert);
    d.daemon.child.kill('SIGHUP');
    const fresh = new X509Certificate(readFileSync(next.cert)).fingerprint256;
    await until('the new certificate to be served', 10_000, async () =>
      (await servedFingerprint()) === fresh ? true : null,
    );
    expect(d.daemon.logs()).toContain('web: TLS certificate files changed');
    expect(d.daemon.logs()).not.toContain('stopping http server');
    // The connection from before the rotation still answers, on the same socket.
    expect(await get('/version', { ...client, agent })).toBe(200);
    expect(sockets()[0]).toBe(before);
    agent.destroy();
  });
});

/** The SHA-256 fingerprint of the certificate the https listener presents to a client with a certificate. */
function servedFingerprint(): Promise<string> {
  const pki = PKI!;
  return new Promise((resolve, reject) => {
    const socket = connect(
      {
        host: '127.0.0.1',
        port: Q,
        ca: readFileSync(pki.ca),
        cert: readFileSync(pki.clientCert),
        key: readFileSync(pki.clientKey),
      },
      () => {
        resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? '');
        socket.end();
      },
    );
    socket.on('error', reject);
  });
}
