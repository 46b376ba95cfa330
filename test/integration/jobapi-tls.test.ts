// The job API over https (spec 10 §3.5, vector 44) on a real daemon: a job gets an https
// CRONSTABLE_STATE_URL naming the configured host and CRONSTABLE_STATE_CACERT, and `cronstable
// state` verifies the endpoint against that CA alone. Rotating the endpoint's certificate swaps it
// in place: a job that is running keeps its token. Certificates come from a throwaway CA.
import { X509Certificate } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { stopChild } from '../helpers/child.ts';
import { type E2eDaemon, startE2eDaemon } from '../helpers/e2e-daemon.ts';
import { hasOpenssl, mintPki, type Pki, signLeaf } from '../helpers/pki.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';
import { cli } from './fixtures/jobcli-kit.ts';

describe.skipIf(!hasOpenssl)('spec 10 §3.5 the job API over https (real daemon, real handshakes)', () => {
  let dir = '';
  let pki: Pki;
  let apiPort = 0;
  let daemon: E2eDaemon | null = null;
  const file = (name: string) => join(dir, name);

  beforeAll(async () => {
    dir = writeTree({ 'keep.txt': '' }, true);
    pki = mintPki(dir);
    apiPort = await freePort();
    const webPort = await freePort();
    const yaml = [
      'state:',
      `  path: ${file('state')}`,
      '  topology: single-node',
      '  jobApi:',
      `    listen: https://127.0.0.1:${apiPort}`,
      '    tls:',
      `      cert: ${pki.cert}`,
      `      key: ${pki.key}`,
      `      ca: ${pki.ca}`,
      'web:',
      '  listen:',
      `    - http://127.0.0.1:${webPort}`,
      'jobs:',
      '  - name: envjob',
      `    command: env > ${file('env.txt')}; cronstable state set k v && echo "got=$(cronstable state get k)" > ${file('set.txt')}`,
      '    schedule: "@reboot"',
      '  - name: long',
      `    command: cronstable state set before 1 && touch ${file('before.ok')} && while [ ! -f ${file('go')} ]; do sleep 0.1; done; cronstable state set after 2 && echo "after=$(cronstable state get after)" > ${file('after.txt')}`,
      '    schedule: "@reboot"',
      '',
    ].join('\n');
    writeFileSync(file('cronstable.yaml'), yaml);
    daemon = await startE2eDaemon(dir, { base: `http://127.0.0.1:${webPort}` });
  });
  afterAll(() => stopChild(daemon?.child));

  it('v44: the job sees an https URL and the CA path, and `cronstable state set` succeeds', async () => {
    await until('envjob to set and read its key', 20_000, async () =>
      existsSync(file('set.txt')) ? true : null,
    );
    expect(readFileSync(file('set.txt'), 'utf8')).toBe('got=v\n');
    const env = readFileSync(file('env.txt'), 'utf8').split('\n');
    expect(env).toContain(`CRONSTABLE_STATE_URL=https://127.0.0.1:${apiPort}`);
    expect(env).toContain(`CRONSTABLE_STATE_CACERT=${pki.ca}`);
  });

  it('the job CLI names a CA file it cannot load, and a handshake its CA does not vouch for', async () => {
    const url = `https://127.0.0.1:${apiPort}`;
    const missing = await cli(['state', 'get', 'k'], {
      CRONSTABLE_STATE_URL: url,
      CRONSTABLE_STATE_TOKEN: 'x',
      CRONSTABLE_STATE_CACERT: '/nonexistent/ca.pem',
    });
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(
      /^cronstable state: cannot load the CA bundle CRONSTABLE_STATE_CACERT points at \(\/nonexistent\/ca\.pem\): .*ENOENT/,
    );
    // Without the CA the system store does not know the test CA: the handshake fails, never an HTTP 401.
    const untrusted = await cli(['state', 'get', 'k'], {
      CRONSTABLE_STATE_URL: url,
      CRONSTABLE_STATE_TOKEN: 'x',
    });
    expect(untrusted.code).toBe(1);
    expect(untrusted.err).toMatch(
      new RegExp(
        `^cronstable state: TLS handshake with the cronstable state endpoint at ${url} failed: .+ \\(does CRONSTABLE_STATE_CACERT point at the CA that signed the daemon's certificate\\?\\)`,
      ),
    );
  });

  it('do better: a rotated certificate is served in place and a running job keeps its token', async () => {
    await until('the long job to write its first key', 20_000, async () =>
      existsSync(file('before.ok')) ? true : null,
    );
    const next = signLeaf(pki.dir, 'state2', 'subjectAltName=IP:127.0.0.1');
    copyFileSync(next.key, pki.key);
    copyFileSync(next.cert, pki.cert);
    daemon!.child.kill('SIGHUP');
    await until('the rotation log line', 10_000, async () =>
      daemon!.logs().includes('state: job API TLS certificate files changed') ? true : null,
    );
    const fresh = new X509Certificate(readFileSync(next.cert)).fingerprint256;
    expect(await served(apiPort, pki.ca)).toBe(fresh);
    writeFileSync(file('go'), '');
    await until('the long job to finish after the rotation', 20_000, async () =>
      existsSync(file('after.txt')) ? true : null,
    );
    expect(readFileSync(file('after.txt'), 'utf8')).toBe('after=2\n');
  });
});

/** The SHA-256 fingerprint of the certificate served on `port`, verified against `ca`. */
function served(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca: readFileSync(ca) }, () => {
      resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? '');
      socket.end();
    });
    socket.on('error', reject);
  });
}
