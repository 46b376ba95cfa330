// A throwaway cluster CA and one leaf certificate per node, for the gossip backend's mutual TLS
// (spec 05 §5.2): the local fleet and the cluster tests generate a fresh set per run. Uses the
// `openssl` command line (on every Debian/Ubuntu host and in our image); P-256 keys, because
// nine RSA-2048 keys cost seconds of CPU per test run on a 2-core machine.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LeafSpec {
  /** The node's name: the certificate's CN and a DNS SAN. */
  name: string;
  /** Extra subject alternative names: `IP:127.0.0.11`, `DNS:localhost`, ... */
  sans?: string[];
}

export interface CertFiles {
  cert: string;
  key: string;
}

export interface ClusterCerts {
  /** The CA certificate (PEM): the cluster's membership allowlist (`cluster.tls.ca`). */
  ca: string;
  caKey: string;
  nodes: Record<string, CertFiles>;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Writes `ca.pem`, `ca.key` and `<name>.pem` / `<name>.key` per leaf under `dir` (keys 0600). */
export function generateClusterCerts(
  dir: string,
  leaves: LeafSpec[],
  opts: { caName?: string; days?: number } = {},
): ClusterCerts {
  mkdirSync(dir, { recursive: true });
  const days = String(opts.days ?? 3650);
  const ca = join(dir, 'ca.pem');
  const caKey = join(dir, 'ca.key');
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      caKey,
      '-out',
      ca,
      '-days',
      days,
      '-subj',
      `/CN=${opts.caName ?? 'cronstable-fleet-ca'}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  chmodSync(caKey, 0o600);
  const nodes: Record<string, CertFiles> = {};
  for (const leaf of leaves) {
    const cert = join(dir, `${leaf.name}.pem`);
    const key = join(dir, `${leaf.name}.key`);
    const csr = join(dir, `${leaf.name}.csr`);
    const ext = join(dir, `${leaf.name}.ext`);
    const sans = [`DNS:${leaf.name}`, ...(leaf.sans ?? [])].join(',');
    writeFileSync(
      ext,
      [
        'basicConstraints=CA:FALSE',
        'keyUsage=critical,digitalSignature',
        'extendedKeyUsage=serverAuth,clientAuth',
        `subjectAltName=${sans}`,
        '',
      ].join('\n'),
    );
    openssl(
      [
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        csr,
        '-subj',
        `/CN=${leaf.name}`,
      ],
      dir,
    );
    openssl(
      [
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        ca,
        '-CAkey',
        caKey,
        '-CAcreateserial',
        '-days',
        days,
        '-extfile',
        ext,
        '-out',
        cert,
      ],
      dir,
    );
    chmodSync(key, 0o600);
    nodes[leaf.name] = { cert, key };
  }
  return { ca, caKey, nodes };
}
