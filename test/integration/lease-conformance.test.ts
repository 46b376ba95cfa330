// One conformance suite, every leadership backend through it (test/helpers/conformance/cases.ts):
// the same cases against the filesystem store, a gossip mesh over real mTLS, a real etcd, and
// the Lease API server of test/helpers/k8s-lease-server.ts. A new backend adds one line here.
import { describeConformance } from '../helpers/conformance/cases.ts';
import { etcdDriver } from '../helpers/conformance/etcd.ts';
import { filesystemDriver } from '../helpers/conformance/filesystem.ts';
import { gossipDriver } from '../helpers/conformance/gossip.ts';
import { kubernetesDriver } from '../helpers/conformance/kubernetes.ts';

for (const driver of [gossipDriver, etcdDriver, kubernetesDriver, filesystemDriver])
  describeConformance(driver);
