// The examples a user copies: example/job-state runs for real on one daemon and its state lands
// in the store; example/etcd elects one leader between two real daemons over a real etcd (when
// the binary is installed); example/kubernetes loads, and its manifests grant and mount what the
// config needs.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort } from '../../scripts/fleet/ports.ts';
import { openStore } from '../../src/store/index.ts';
import { etcdBinary, startEtcd } from '../helpers/etcd.ts';
import { waitFor } from '../helpers/sinks.ts';
import { BUNDLE, ROOT, validate } from './grand-tour-kit.ts';

interface Daemon {
  child: ChildProcess;
  out: string;
  err: string;
  exit: Promise<number | null>;
}

const started: Daemon[] = [];
const dirs: string[] = [];

function tempDir(tag: string): string {
  const d = mkdtempSync(join(tmpdir(), `examples-${tag}-`));
  dirs.push(d);
  return d;
}

function startDaemon(config: string, cwd: string): Daemon {
  const child = spawn(process.execPath, [BUNDLE, '-c', config], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const d: Daemon = { child, out: '', err: '', exit: new Promise((r) => child.on('exit', (c) => r(c))) };
  child.stdout!.on('data', (c: Buffer) => {
    d.out += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    d.err += c.toString();
  });
  started.push(d);
  return d;
}

async function stop(d: Daemon): Promise<void> {
  d.child.kill('SIGTERM');
  expect(await d.exit).toBe(0);
}

afterAll(async () => {
  for (const d of started) if (d.child.exitCode === null) d.child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Polls an async check every 100 ms for up to 30 s (a loaded 2-core CI machine is slow). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The example's text with `from` replaced by `to` (each must occur). */
function rewrite(text: string, pairs: [string, string][]): string {
  for (const [from, to] of pairs) {
    expect(text, from).toContain(from);
    text = text.replaceAll(from, to);
  }
  return text;
}

describe('example/job-state', () => {
  const file = join(ROOT, 'example', 'job-state', 'cronstable.yaml');

  it('is a valid config', () => {
    const v = validate(file);
    expect(v.output).toContain('Configuration is valid.');
  });

  it('runs every primitive for real on one daemon, and the state is in the store', async () => {
    const dir = tempDir('jobstate');
    const statePath = join(dir, 'state');
    const port = await freePort();
    writeFileSync(
      join(dir, 'cronstable.yaml'),
      rewrite(readFileSync(file, 'utf8'), [
        ['path: /tmp/cronstable-job-state', `path: ${statePath}`],
        ['http://127.0.0.1:8080', `http://127.0.0.1:${port}`],
      ]),
    );
    const d = startDaemon(join(dir, 'cronstable.yaml'), dir);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(() => d.err.includes('web: started listening'), 30_000, `the daemon; stderr:\n${d.err}`);
    // Each job twice, one at a time: the second run shows what the first one left behind.
    // [job, its done line, runs]: a second run shows what the first one left behind.
    const jobs: [string, RegExp, number][] = [
      ['export-new-orders', /exporting orders changed in/g, 2],
      ['charge-subscriptions', /charg(ing subscriptions|e-\S+ already charged)/g, 2],
      ['publish-daily-report', /report-\d{4}-\d\d-\d\d\.csv\n/g, 1],
      ['remember-last-sync', /last sync: \d{4}-/g, 1],
      ['count-runs', /count=\d+/g, 2],
      ['compact-segments', /compacted/g, 1],
      ['render-thumbnails', /rendering a batch/g, 1],
    ];
    // A job's schedule may also fire while the test runs, hence "at least".
    const runsOf = async (name: string) =>
      ((await (await fetch(`${base}/jobs/${name}/runs`)).json()) as { runs: unknown[] }).runs.length;
    await Promise.all(
      jobs.map(async ([name, done, times]) => {
        for (let i = 1; i <= times; i++) {
          const before = await runsOf(name);
          const res = await fetch(`${base}/jobs/${name}/start`, { method: 'POST' });
          expect(res.status, name).toBe(200);
          await until(async () => (await runsOf(name)) > before, `${name} run ${i}; stderr:\n${d.err}`);
          expect((d.out.match(done) ?? []).length, `${name}: ${d.out}`).toBeGreaterThanOrEqual(i);
        }
      }),
    );
    expect(d.out).toMatch(/charging subscriptions \(charge-\d{4}-\d\d-\d\d\)/);
    expect(d.out).toMatch(/charge-\d{4}-\d\d-\d\d already charged; skipping/);
    expect(d.out).toContain('count=1');
    expect(d.out).toContain('count=2');
    await stop(d);

    const store = await openStore({
      path: statePath,
      namespace: 'job-state-demo',
      topology: 'single-node',
      inline: true,
    });
    try {
      const cursor = await store.cursorGet('export-new-orders', 'orders-watermark');
      expect(typeof cursor?.value).toBe('number');
      expect(Math.abs((cursor!.value as number) - Date.now() / 1000)).toBeLessThan(120);
      const day = new Date().toISOString().slice(0, 10);
      expect((await store.idempotencyClaim('charge-subscriptions', `charge-${day}`, 0)).fresh).toBe(false);
      const artifact = await store.artifactGet('publish-daily-report', `report-${day}.csv`);
      expect(artifact).not.toBeNull();
      expect(Buffer.from((artifact as { bytes: Uint8Array }).bytes).toString()).toBe(
        `date,orders\n${day},1289\n`,
      );
      expect((await store.kvGet('remember-last-sync', 'last-sync-meta'))?.value).toEqual({
        rows: 42,
        ok: true,
      });
      expect(String((await store.kvGet('remember-last-sync', 'last-sync'))?.value)).toMatch(
        /^\d{4}-\d\d-\d\dT/,
      );
      // Every run is in the ledger as a success, the lock holders included; the counter counted each.
      for (const [name, , times] of jobs) {
        const outcomes = (await store.list(`runs/${name}`)).map(
          (r) => (r.data as { outcome?: string }).outcome,
        );
        expect(outcomes.length, name).toBeGreaterThanOrEqual(times);
        expect(new Set(outcomes), name).toEqual(new Set(['success']));
      }
      expect((await store.kvGet('global', 'runs'))?.value).toBe((await store.list('runs/count-runs')).length);
    } finally {
      await store.close();
    }
  }, 90_000);
});

describe('example/etcd', () => {
  const file = join(ROOT, 'example', 'etcd', 'cronstable.yaml');

  it('is a valid config', () => {
    expect(validate(file).output).toContain('Configuration is valid.');
  });

  it.skipIf(etcdBinary() === null)(
    'elects exactly one leader between node-a and node-b over a real etcd',
    async () => {
      const etcd = await startEtcd();
      try {
        const dir = tempDir('etcd');
        const text = readFileSync(file, 'utf8');
        const ports = [await freePort(), await freePort()];
        const nodes = ['node-a', 'node-b'].map((name, i) => {
          const path = join(dir, `${name}.yaml`);
          writeFileSync(
            path,
            rewrite(text, [
              ['http://127.0.0.1:2379', etcd.url],
              ['nodeName: node-a', `nodeName: ${name}`],
              ['http://127.0.0.1:8080', `http://127.0.0.1:${ports[i]}`],
              ['electionName: cronstable-demo/leader', `electionName: test-${process.pid}/leader`],
            ]),
          );
          return startDaemon(path, dir);
        });
        let views: { is_leader: boolean; leader: string | null }[] = [];
        await until(async () => {
          views = await Promise.all(
            ports.map((p) =>
              fetch(`http://127.0.0.1:${p}/cluster`)
                .then((r) => r.json() as Promise<{ is_leader: boolean; leader: string | null }>)
                .catch(() => ({ is_leader: false, leader: null })),
            ),
          );
          return (
            views.every((v) => v.leader !== null) &&
            views[0]!.leader === views[1]!.leader &&
            views.filter((v) => v.is_leader).length === 1
          );
        }, 'one leader both nodes agree on');
        expect(['node-a', 'node-b']).toContain(views[0]!.leader);
        for (const n of nodes) await stop(n);
      } finally {
        await etcd.destroy();
      }
    },
    60_000,
  );
});

describe('example/kubernetes', () => {
  const dir = join(ROOT, 'example', 'kubernetes');
  const config = parse(readFileSync(join(dir, 'config', 'cronstable.yaml'), 'utf8'));
  interface K8sObject {
    kind: string;
    metadata: { name: string };
    [k: string]: unknown;
  }
  const items = (f: string) => (parse(readFileSync(join(dir, f), 'utf8')) as { items: K8sObject[] }).items;
  const rbac = items('rbac.yaml');
  const workload = items('statefulset.yaml');
  const one = (list: K8sObject[], kind: string) => {
    const found = list.filter((o) => o.kind === kind);
    expect(found, kind).toHaveLength(1);
    return found[0] as K8sObject & Record<string, never>;
  };

  it('is a valid config (Lease backend, shared state)', () => {
    expect(validate(join(dir, 'config')).output).toContain('Configuration is valid.');
    expect(config.cluster.backend).toBe('kubernetes');
    expect(config.state.topology).toBe('shared');
  });

  it("grants get/update on the config's Lease and create on leases, bound to the pods' account", () => {
    const role = one(rbac, 'Role') as unknown as {
      metadata: { name: string };
      rules: { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] }[];
    };
    const leaseName = config.cluster.kubernetes.leaseName;
    const allowed = (verb: string, name: string | null) =>
      role.rules.some(
        (r) =>
          r.apiGroups.includes('coordination.k8s.io') &&
          r.resources.includes('leases') &&
          r.verbs.includes(verb) &&
          (!r.resourceNames || (name !== null && r.resourceNames.includes(name))),
      );
    expect(allowed('get', leaseName)).toBe(true);
    expect(allowed('update', leaseName)).toBe(true);
    // create cannot name the object (it does not exist yet).
    expect(allowed('create', null)).toBe(true);
    expect(allowed('delete', leaseName)).toBe(false);
    const account = one(rbac, 'ServiceAccount').metadata.name;
    const binding = one(rbac, 'RoleBinding') as unknown as {
      subjects: { kind: string; name: string }[];
      roleRef: { kind: string; name: string };
    };
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: account }]);
    expect(binding.roleRef).toMatchObject({ kind: 'Role', name: role.metadata.name });
    const sts = one(workload, 'StatefulSet') as unknown as {
      spec: { template: { spec: { serviceAccountName: string } } };
    };
    expect(sts.spec.template.spec.serviceAccountName).toBe(account);
  });

  it('runs a StatefulSet whose replicas all mount one ReadWriteMany claim under state.path', () => {
    const pvc = one(workload, 'PersistentVolumeClaim') as unknown as {
      metadata: { name: string };
      spec: { accessModes: string[] };
    };
    expect(pvc.spec.accessModes).toEqual(['ReadWriteMany']);
    const sts = one(workload, 'StatefulSet') as unknown as {
      spec: {
        replicas: number;
        serviceName: string;
        volumeClaimTemplates?: unknown;
        template: {
          spec: {
            containers: {
              args: string[];
              volumeMounts: { name: string; mountPath: string }[];
              securityContext?: { readOnlyRootFilesystem?: boolean };
            }[];
            volumes: {
              name: string;
              persistentVolumeClaim?: { claimName: string };
              configMap?: { name: string };
              emptyDir?: unknown;
            }[];
          };
        };
      };
    };
    expect(sts.spec.replicas).toBeGreaterThanOrEqual(3);
    expect(sts.spec.volumeClaimTemplates).toBeUndefined(); // per-pod claims would split the store
    expect(one(workload, 'Service').metadata.name).toBe(sts.spec.serviceName);
    const pod = sts.spec.template.spec;
    const container = pod.containers[0]!;
    const volume = (name: string) => pod.volumes.find((v) => v.name === name)!;
    const mountOf = (pred: (v: (typeof pod.volumes)[number]) => boolean) => {
      const v = pod.volumes.find(pred)!;
      return container.volumeMounts.find((m) => m.name === v.name)!.mountPath;
    };
    const stateMount = mountOf((v) => v.persistentVolumeClaim?.claimName === pvc.metadata.name);
    expect(config.state.path.startsWith(`${stateMount}/`)).toBe(true);
    const configMount = mountOf((v) => v.configMap !== undefined);
    expect(container.args).toEqual(['-c', configMount]);
    // A read-only root needs a writable /tmp for the jobs' `cronstable` shim.
    expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(volume('tmp').emptyDir).toBeDefined();
    expect(container.volumeMounts.find((m) => m.name === 'tmp')?.mountPath).toBe('/tmp');
  });
});
