// Where the API server is and how we prove who we are (spec 05 §10): a kubeconfig when one is
// configured, else the pod's service account. The token is re-read from its file before every
// request, because projected service-account tokens rotate under a running pod.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TlsFiles } from '../json-transport.ts';
import { loadKubeconfig } from './kubeconfig.ts';
import type { KubernetesSettings } from './settings.ts';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** Overrides the service-account directory (tests; unusual mounts). */
export const SERVICE_ACCOUNT_DIR_ENV = 'CRONSTABLE_K8S_SERVICEACCOUNT_DIR';

export interface ApiCredentials {
  baseUrl: string;
  namespace: string;
  tls: TlsFiles;
  /** Reads the bearer token now (null = none, e.g. client-certificate auth). */
  token(): Promise<string | null>;
  /** `in-cluster` or `kubeconfig <path>`, for the ready log. */
  source: string;
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

function readTokenFile(path: string): () => Promise<string> {
  return async () => {
    const token = (await readFile(path, 'utf8')).trim();
    if (token === '') throw new Error(`the token file ${path} is empty`);
    return token;
  };
}

/** `https://host:port`, bracketing an IPv6 host. */
export function inClusterUrl(host: string, port: string | undefined): string {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `https://${h}:${port && port !== '' ? port : '443'}`;
}

/** Resolves the API credentials once at start; failures reject start (Leader jobs fail closed). */
export async function resolveCredentials(
  s: KubernetesSettings,
  env: NodeJS.ProcessEnv,
): Promise<ApiCredentials> {
  const saDir = env[SERVICE_ACCOUNT_DIR_ENV] || SERVICE_ACCOUNT_DIR;
  const saNamespace = async () => (await readOptional(join(saDir, 'namespace')))?.trim() || null;
  if (s.kubeconfig) {
    const kc = await loadKubeconfig(s.kubeconfig);
    const staticToken = kc.token;
    const token = kc.tokenFile ? readTokenFile(kc.tokenFile) : async () => staticToken;
    if (!staticToken && !kc.tokenFile && !(kc.cert && kc.key))
      throw new Error(
        `kubeconfig ${s.kubeconfig}: the current user has neither a token nor a client certificate`,
      );
    return {
      baseUrl: (s.apiServer ?? kc.server).replace(/\/+$/, ''),
      namespace: s.leaseNamespace ?? kc.namespace ?? (await saNamespace()) ?? 'default',
      tls: { ca: kc.ca, cert: kc.cert, key: kc.key },
      token,
      source: `kubeconfig ${s.kubeconfig}`,
    };
  }
  const host = env.KUBERNETES_SERVICE_HOST;
  if (!s.apiServer && !host)
    throw new Error(
      'not running in a cluster (KUBERNETES_SERVICE_HOST is unset) and neither kubernetes.kubeconfig nor kubernetes.apiServer is set',
    );
  const tokenPath = join(saDir, 'token');
  const [ca, namespaceFile] = await Promise.all([readOptional(join(saDir, 'ca.crt')), saNamespace()]);
  // Read once now so a missing token fails start instead of every round.
  await readTokenFile(tokenPath)();
  return {
    baseUrl: (s.apiServer ?? inClusterUrl(host!, env.KUBERNETES_SERVICE_PORT)).replace(/\/+$/, ''),
    namespace: s.leaseNamespace ?? namespaceFile ?? 'default',
    tls: { ca: ca ?? undefined },
    token: readTokenFile(tokenPath),
    source: 'in-cluster service account',
  };
}
