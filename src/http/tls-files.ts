// Server-side TLS material read from files (spec 10 §3.4, §3.5): a fingerprint that says whether the
// files changed, and a load that proves them usable before anything is swapped. Shared by the web
// edge and the job API, which both rotate certificates in place with `setSecureContext()`.
import { readFileSync, statSync } from 'node:fs';
import { createSecureContext, type SecureContextOptions } from 'node:tls';

export interface TlsFilePaths {
  cert?: string | null;
  key?: string | null;
  /** A CA bundle that client certificates must chain to (mutual TLS); blank = none. */
  clientCa?: string | null;
}

/**
 * mtime (ns) and size of each file, symlinks followed, a missing file counted as "none": cheap
 * enough for every housekeeping pass, and a rename-into-place rotation always changes it.
 */
export function tlsFingerprint(paths: TlsFilePaths): string {
  return [paths.cert, paths.key, paths.clientCa]
    .map((p) => {
      if (!p) return '-';
      try {
        const st = statSync(p, { bigint: true });
        return `${st.mtimeNs}:${st.size}`;
      } catch {
        return 'none';
      }
    })
    .join('|');
}

/**
 * Reads the files and builds a secure context from them as a dry run, so a half-written or
 * mismatched pair throws here (a PEM or key-mismatch error) instead of at the next handshake.
 * Returns the options for `createServer` / `setSecureContext`.
 */
export function loadTlsFiles(paths: TlsFilePaths): SecureContextOptions {
  if (!paths.cert || !paths.key) throw new Error('a certificate and its key are both needed');
  const options: SecureContextOptions = { cert: readFileSync(paths.cert), key: readFileSync(paths.key) };
  if (paths.clientCa) options.ca = readFileSync(paths.clientCa);
  createSecureContext(options);
  return options;
}
