// Mutual TLS on the web listener (spec 10 §3.1-§3.2) on a real daemon: Setup X of spec 10 §8 with
// a throwaway CA minted by openssl at run time (nothing checked in). A client without a
// certificate must fail the TLS handshake itself, never get an HTTP status.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { suiteMcpDaemon } from '../helpers/mcp.ts';
import { writeTree } from '../helpers/tmp.ts';
import { baseEnv, cli } from './fixtures/jobcli-kit.ts';

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

/** A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by the CA. */
function mintPki(dir: string): Record<'ca' | 'cert' | 'key' | 'clientCert' | 'clientKey', string> {
  const o = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  o(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '1',
    '-subj',
    '/CN=test-ca',
  );
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\n');
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const [name, ext] of [
    ['server', 'server.ext'],
    ['client', 'client.ext'],
  ] as const) {
    o(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/CN=${name}`,
    );
    o(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '1',
      '-extfile',
      ext,
    );
  }
  const p = (f: string) => join(dir, f);
  return {
    ca: p('ca.pem'),
    cert: p('server.pem'),
    key: p('server.key'),
    clientCert: p('client.pem'),
    clientKey: p('client.key'),
  };
}

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
function get(path: string, opts: { cert?: string; key?: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `https://127.0.0.1:${Q}${path}`,
      {
        ca: readFileSync(PKI!.ca),
        ...(opts.cert ? { cert: readFileSync(opts.cert), key: readFileSync(opts.key!) } : {}),
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

describe.skipIf(!hasOpenssl)('spec 10 §3 mutual TLS on Setup X (real daemon, real handshakes)', () => {
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
});
