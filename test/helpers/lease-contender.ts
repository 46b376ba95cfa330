// A lease-backend contender in its own process, so a test can SIGKILL a leader for real.
// Usage: node --import tsx lease-contender.ts <etcd|kubernetes> <nodeName> '<cluster section JSON>'
// Prints one JSON line `{"is_leader","quorate","leader"}` whenever its view changes.

import type { BackendFactory } from '../../src/cluster/types.ts';
import type { ClusterSection } from '../../src/config/file-schema.ts';
import { contenderHost } from './contender-host.ts';

const [kind, nodeName, sectionJson] = process.argv.slice(2);
const cluster = JSON.parse(sectionJson!) as ClusterSection;
const host = contenderHost(nodeName!, {
  info: (m) => process.stderr.write(`INFO ${m}\n`),
  warning: (m) => process.stderr.write(`WARNING ${m}\n`),
  error: (m) => process.stderr.write(`ERROR ${m}\n`),
});
const factory: BackendFactory =
  kind === 'etcd'
    ? (await import('../../src/cluster/etcd/index.ts')).createEtcdBackend
    : (await import('../../src/cluster/kubernetes/index.ts')).createKubernetesBackend;
const backend = factory(cluster, host);
await backend.start();
let last = '';
setInterval(() => {
  const r = backend.report();
  const line = JSON.stringify({ is_leader: r.is_leader, quorate: r.quorate, leader: r.leader });
  if (line !== last) process.stdout.write(`${line}\n`);
  last = line;
}, 50);
process.on('SIGTERM', () => {
  void backend.stop().then(() => process.exit(0));
});
