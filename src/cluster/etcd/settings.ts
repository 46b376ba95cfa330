// The etcd block with its defaults applied (spec 05 §2.4) and the round cadence it implies (§9).
// Pure: reading the password and TLS files happens at start.
import type { ClusterSection } from '../../config/file-schema.ts';
import type { SecretSource } from '../../config/types.ts';
import { type LeaseCadence, leaseCadence } from '../lease-state.ts';

export interface EtcdSettings {
  endpoints: string[];
  electionName: string;
  ttl: number;
  connectTimeout: number;
  username: string | null;
  password: SecretSource | null;
  tls: { ca: string | null; cert: string | null; key: string | null };
}

export function etcdSettings(cluster: ClusterSection): EtcdSettings {
  const e = cluster.etcd ?? {};
  return {
    endpoints: e.endpoints && e.endpoints.length > 0 ? [...e.endpoints] : ['http://127.0.0.1:2379'],
    electionName: e.electionName ?? 'cronstable/leader',
    ttl: e.ttl ?? 15,
    connectTimeout: cluster.connectTimeout ?? 10,
    username: e.username ?? null,
    password: e.password ?? null,
    tls: { ca: e.tls?.ca ?? null, cert: e.tls?.cert ?? null, key: e.tls?.key ?? null },
  };
}

/** Round cadence of spec 05 §9: renew `max(1, ttl/3)`, round `max(1, ttl − renew − 1)`, POST `min(connectTimeout, round/5)`. */
export function etcdCadence(effectiveTtl: number, connectTimeout: number): LeaseCadence {
  return leaseCadence(effectiveTtl, connectTimeout, 5, 0);
}

/** The advisory of spec 05 §2.4 / §9 for a ttl whose renew POSTs get under a second each. */
export function lowTtlAdvisory(effectiveTtl: number, requestedTtl: number): string | null {
  const granted =
    effectiveTtl < requestedTtl ? ` (granted ${effectiveTtl} s of the ${requestedTtl} s asked)` : '';
  if (effectiveTtl < 3)
    return `cluster: the etcd lease ttl is ${effectiveTtl} s${granted}, below 3 s: this node effectively cannot lead`;
  if ((effectiveTtl - Math.max(1, effectiveTtl / 3) - 1) / 5 < 1)
    return `cluster: the etcd lease ttl of ${effectiveTtl} s${granted} leaves each renew request under 1 s`;
  return null;
}
