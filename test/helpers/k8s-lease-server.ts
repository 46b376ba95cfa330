// A stand-in for the Kubernetes API server that implements just the Lease endpoints the backend
// uses (no real API server can run here): HTTPS with a throwaway CA, bearer-token auth, and real
// optimistic concurrency: every write bumps a resourceVersion, a PUT carrying a stale one gets
// 409 Conflict, a POST of an existing name gets 409 AlreadyExists, a GET of a missing one 404.
// It can go away (listener closed, sockets dropped) and come back on the same port.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateClusterCerts } from '../../scripts/fleet/certs.ts';

export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  token: string | null;
  /** performance.now() when answered. */
  at: number;
}

export interface LeaseServer {
  /** `https://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** A service-account directory (`ca.crt`, `token`, `namespace`) pointing at this server. */
  serviceAccountDir: string;
  /** The CA file (PEM) that signed the server certificate. */
  caFile: string;
  /** Rotates the accepted token and rewrites the service-account token file to match. */
  rotateToken(next: string): void;
  /** Accepts only this token from now on, without touching the token file. */
  acceptOnly(token: string): void;
  requests: RequestLogEntry[];
  /** The stored object (a copy), or undefined. */
  lease(namespace: string, name: string): Record<string, unknown> | undefined;
  /**
   * Another writer slips in: just before the next PUT to this lease is handled, the stored object
   * gets an annotation and a new resourceVersion, so that PUT (read before) conflicts.
   */
  interleaveBeforeNextPut(namespace: string, name: string): void;
  /** Answers every write with 403 Forbidden (RBAC granting `get` but not `create`/`update`). */
  forbidWrites(on: boolean): void;
  /** Deletes a stored lease (an operator's `kubectl delete lease`). */
  deleteLease(namespace: string, name: string): void;
  /** Stops answering: closes the listener and drops every open connection. */
  goAway(): Promise<void>;
  comeBack(): Promise<void>;
  close(): Promise<void>;
}

const LEASES = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/([^/]+)\/leases(?:\/([^/]+))?$/;

function status(code: number, reason: string, message: string) {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code };
}

export async function startLeaseServer(
  opts: { namespace?: string; token?: string } = {},
): Promise<LeaseServer> {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-k8s-'));
  const certs = generateClusterCerts(join(dir, 'pki'), [{ name: 'kube-apiserver', sans: ['IP:127.0.0.1'] }], {
    caName: 'cronstable-test-k8s-ca',
  });
  const saDir = join(dir, 'serviceaccount');
  const namespace = opts.namespace ?? 'cronstable-test';
  let token = opts.token ?? 'token-0';
  mkdirSync(saDir, { recursive: true });
  writeFileSync(join(saDir, 'ca.crt'), readFileSync(certs.ca));
  writeFileSync(join(saDir, 'token'), `${token}\n`);
  writeFileSync(join(saDir, 'namespace'), namespace);

  const store = new Map<string, Record<string, unknown>>();
  let version = 100;
  const requests: RequestLogEntry[] = [];
  const interleave = new Set<string>();
  let writesForbidden = false;

  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const path = (req.url ?? '').split('?')[0]!;
    const auth = req.headers.authorization ?? null;
    const presented = auth?.startsWith('Bearer ') ? auth.slice(7) : null;
    const send = (code: number, payload: unknown) => {
      requests.push({
        method: req.method ?? '',
        path,
        status: code,
        token: presented,
        at: performance.now(),
      });
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    if (presented !== token) return send(401, status(401, 'Unauthorized', 'Unauthorized'));
    const m = LEASES.exec(path);
    if (!m) return send(404, status(404, 'NotFound', `no route ${path}`));
    const ns = decodeURIComponent(m[1]!);
    if (writesForbidden && req.method !== 'GET')
      return send(403, status(403, 'Forbidden', 'leases.coordination.k8s.io is forbidden: cannot update'));
    const name = m[2] === undefined ? undefined : decodeURIComponent(m[2]);
    let obj: Record<string, unknown> | null = null;
    if (req.method !== 'GET') {
      try {
        obj = JSON.parse(body) as Record<string, unknown>;
      } catch {
        return send(400, status(400, 'BadRequest', 'invalid JSON'));
      }
    }
    const meta = (obj?.metadata ?? {}) as Record<string, unknown>;
    if (req.method === 'GET' && name !== undefined) {
      const found = store.get(`${ns}/${name}`);
      if (!found) return send(404, status(404, 'NotFound', `leases.coordination.k8s.io "${name}" not found`));
      return send(200, found);
    }
    if (req.method === 'POST' && name === undefined) {
      const n = meta.name;
      if (typeof n !== 'string' || obj?.kind !== 'Lease')
        return send(422, status(422, 'Invalid', 'not a Lease'));
      if (store.has(`${ns}/${n}`))
        return send(409, status(409, 'AlreadyExists', `leases.coordination.k8s.io "${n}" already exists`));
      if (meta.resourceVersion !== undefined)
        return send(422, status(422, 'Invalid', 'resourceVersion may not be set on objects to be created'));
      const created = {
        ...obj,
        metadata: { ...meta, namespace: ns, uid: `uid-${version}`, resourceVersion: String(++version) },
      };
      store.set(`${ns}/${n}`, created);
      return send(201, created);
    }
    if (req.method === 'PUT' && name !== undefined && interleave.delete(`${ns}/${name}`)) {
      const before = store.get(`${ns}/${name}`);
      if (before) {
        const m = before.metadata as Record<string, unknown>;
        const annotations = {
          ...(m.annotations as Record<string, string> | undefined),
          'test/touched': 'yes',
        };
        store.set(`${ns}/${name}`, {
          ...before,
          metadata: { ...m, annotations, resourceVersion: String(++version) },
        });
      }
    }
    if (req.method === 'PUT' && name !== undefined) {
      const current = store.get(`${ns}/${name}`);
      if (!current)
        return send(404, status(404, 'NotFound', `leases.coordination.k8s.io "${name}" not found`));
      if (meta.name !== name)
        return send(400, status(400, 'BadRequest', 'the name in the body does not match'));
      const rv = meta.resourceVersion;
      const currentRv = (current.metadata as Record<string, unknown>).resourceVersion;
      if (rv !== undefined && rv !== currentRv)
        return send(
          409,
          status(
            409,
            'Conflict',
            `Operation cannot be fulfilled on leases.coordination.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`,
          ),
        );
      const updated = { ...obj, metadata: { ...meta, namespace: ns, resourceVersion: String(++version) } };
      store.set(`${ns}/${name}`, updated);
      return send(200, updated);
    }
    return send(405, status(405, 'MethodNotAllowed', 'method not allowed'));
  };

  const sockets = new Set<Socket>();
  const makeServer = () => {
    const srv = https.createServer(
      {
        key: readFileSync(certs.nodes['kube-apiserver']!.key),
        cert: readFileSync(certs.nodes['kube-apiserver']!.cert),
      },
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
      },
    );
    srv.on('secureConnection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    return srv;
  };

  let server: https.Server | null = makeServer();
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;

  const goAway = async () => {
    const srv = server;
    server = null;
    if (!srv) return;
    const closed = new Promise<void>((r) => srv.close(() => r()));
    for (const s of sockets) s.destroy();
    await closed;
  };

  return {
    url: `https://127.0.0.1:${port}`,
    port,
    serviceAccountDir: saDir,
    caFile: certs.ca,
    rotateToken(next) {
      token = next;
      writeFileSync(join(saDir, 'token'), `${next}\n`);
    },
    acceptOnly(next) {
      token = next;
    },
    requests,
    lease(ns, name) {
      const o = store.get(`${ns}/${name}`);
      return o ? (JSON.parse(JSON.stringify(o)) as Record<string, unknown>) : undefined;
    },
    forbidWrites(on) {
      writesForbidden = on;
    },
    interleaveBeforeNextPut(ns, name) {
      interleave.add(`${ns}/${name}`);
    },
    deleteLease(ns, name) {
      store.delete(`${ns}/${name}`);
      version++;
    },
    goAway,
    async comeBack() {
      if (server) return;
      const srv = makeServer();
      await new Promise<void>((r, j) => {
        srv.once('error', j);
        srv.listen(port, '127.0.0.1', () => r());
      });
      server = srv;
    },
    async close() {
      await goAway();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
