// Out-of-cluster credentials from a kubeconfig file (spec 05 §2.5): the current context's server,
// CA, namespace, and a static token or a client certificate. Exec plugins and auth providers are
// refused (they need a subprocess or a cloud SDK at every token refresh, which we do not run).
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseStrict, type YNode } from '../../config/strict-yaml.ts';

export interface KubeconfigCredentials {
  server: string;
  namespace: string | null;
  ca: string | undefined;
  cert: string | undefined;
  key: string | undefined;
  token: string | null;
  /** A file the token is read from before each request (`tokenFile`). */
  tokenFile: string | null;
}

type Plain = string | Plain[] | { [key: string]: Plain } | null;

function plain(node: YNode | null): Plain {
  if (!node) return null;
  if (node.kind === 'scalar') return node.style === 'empty' ? null : node.value;
  if (node.kind === 'seq') return node.items.map(plain);
  const out: Record<string, Plain> = {};
  for (const p of node.items) out[p.key.value] = plain(p.value);
  return out;
}

/**
 * A kubeconfig as plain data. kubectl writes JSON or block YAML, plus `{}` / `[]` for empty
 * collections (`preferences: {}`), which our strict YAML dialect refuses: those two exact
 * values are read as empty before parsing.
 */
export function parseKubeconfig(text: string): Record<string, Plain> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return JSON.parse(trimmed) as Record<string, Plain>;
  const relaxed = text.replace(/^(\s*(?:-\s+)?[^#\s][^:]*:)\s*(?:\{\}|\[\])\s*$/gm, '$1');
  const { root, errors } = parseStrict(relaxed);
  if (errors.length > 0) throw new Error(`kubeconfig is not readable YAML: ${errors[0]!.message}`);
  const data = plain(root);
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new Error('kubeconfig is not a mapping');
  return data;
}

function entry(list: Plain, name: string, what: string, field: string): Record<string, Plain> {
  const items = Array.isArray(list) ? list : [];
  for (const item of items) {
    if (item && typeof item === 'object' && !Array.isArray(item) && item.name === name) {
      const inner = item[field];
      if (inner && typeof inner === 'object' && !Array.isArray(inner)) return inner;
      return {};
    }
  }
  throw new Error(`kubeconfig has no ${what} named ${JSON.stringify(name)}`);
}

const str = (v: Plain | undefined): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** Resolves the current context of the kubeconfig at `path` (relative file paths from its dir). */
export async function loadKubeconfig(path: string): Promise<KubeconfigCredentials> {
  const cfg = parseKubeconfig(await readFile(path, 'utf8'));
  const base = dirname(path);
  const rel = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
  const contextName = str(cfg['current-context']);
  if (!contextName) throw new Error(`kubeconfig ${path} has no current-context`);
  const context = entry(cfg.contexts ?? null, contextName, 'context', 'context');
  const clusterName = str(context.cluster);
  const userName = str(context.user);
  if (!clusterName) throw new Error(`kubeconfig context ${contextName} names no cluster`);
  const cluster = entry(cfg.clusters ?? null, clusterName, 'cluster', 'cluster');
  const user = userName ? entry(cfg.users ?? null, userName, 'user', 'user') : {};
  if (user.exec || user['auth-provider'])
    throw new Error(
      `kubeconfig user ${userName} uses an exec plugin or auth provider; only a static token or a client certificate is supported`,
    );
  const server = str(cluster.server);
  if (!server) throw new Error(`kubeconfig cluster ${clusterName} has no server`);
  const pem = async (dataKey: string, fileKey: string, from: Record<string, Plain>) => {
    const data = str(from[dataKey]);
    if (data) return Buffer.from(data, 'base64').toString('utf8');
    const file = str(from[fileKey]);
    return file ? readFile(rel(file), 'utf8') : undefined;
  };
  const tokenFile = str(user.tokenFile);
  return {
    server,
    namespace: str(context.namespace),
    ca: await pem('certificate-authority-data', 'certificate-authority', cluster),
    cert: await pem('client-certificate-data', 'client-certificate', user),
    key: await pem('client-key-data', 'client-key', user),
    token: str(user.token),
    tokenFile: tokenFile ? rel(tokenFile) : null,
  };
}
