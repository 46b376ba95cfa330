// A throwaway public-key infrastructure for TLS tests, minted by openssl at run time so no private
// key is ever checked in: a CA, a server certificate for 127.0.0.1/localhost and a client
// certificate, both signed by the CA. Tests that need it skip when openssl is missing. P-256 keys:
// an RSA-2048 key took 0.05-1 s of openssl each on the CI machine, a P-256 one ~10 ms.
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

export interface Pki {
  dir: string;
  /** The CA certificate (PEM). */
  ca: string;
  /** The server certificate (SAN IP:127.0.0.1, DNS:localhost) and its key. */
  cert: string;
  key: string;
  /** A client certificate (extendedKeyUsage clientAuth) and its key. */
  clientCert: string;
  clientKey: string;
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
const P256_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A self-signed certificate for `/CN=<cn>` and its key, written into `dir` as `<name>.pem` and `<name>.key`. */
export function selfSigned(dir: string, name: string, cn: string): { cert: string; key: string } {
  openssl(dir, [
    'req',
    '-x509',
    ...P256_KEY,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.pem`,
    '-days',
    '1',
    '-subj',
    `/CN=${cn}`,
  ]);
  return { cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`) };
}

/** Signs a fresh key pair named `name` with the CA in `dir`, with the given X.509 extensions. */
export function signLeaf(dir: string, name: string, ext: string): { cert: string; key: string } {
  writeFileSync(join(dir, `${name}.ext`), `${ext}\n`);
  openssl(dir, ['req', ...P256_KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  openssl(dir, [
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
    `${name}.ext`,
  ]);
  return { cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`) };
}

/** Mints the CA and its two leaves into `dir` (which must exist). */
export function mintPki(dir: string): Pki {
  selfSigned(dir, 'ca', 'test-ca');
  const server = signLeaf(dir, 'server', 'subjectAltName=IP:127.0.0.1,DNS:localhost');
  const client = signLeaf(dir, 'client', 'extendedKeyUsage=clientAuth');
  return {
    dir,
    ca: join(dir, 'ca.pem'),
    cert: server.cert,
    key: server.key,
    clientCert: client.cert,
    clientKey: client.key,
  };
}
