// The kubernetes block with its defaults applied (spec 05 §2.5). Pure; load-time rules (names,
// timing) are checked by the config loader (src/config/sections.ts).
import type { ClusterSection } from '../../config/file-schema.ts';

export interface KubernetesSettings {
  leaseName: string;
  /** The configured namespace; null = resolve from kubeconfig, the service account, `default`. */
  leaseNamespace: string | null;
  clientLibrary: 'auto' | 'http' | 'library';
  durationSeconds: number;
  renewDeadlineSeconds: number;
  retryPeriodSeconds: number;
  identity: string;
  kubeconfig: string | null;
  apiServer: string | null;
  connectTimeout: number;
}

export function kubernetesSettings(cluster: ClusterSection, nodeName: string): KubernetesSettings {
  const k = cluster.kubernetes ?? {};
  return {
    leaseName: k.leaseName ?? 'cronstable-leader',
    leaseNamespace: k.leaseNamespace ?? null,
    clientLibrary: k.clientLibrary ?? 'auto',
    durationSeconds: k.leaseDurationSeconds ?? 15,
    renewDeadlineSeconds: k.renewDeadlineSeconds ?? 10,
    retryPeriodSeconds: k.retryPeriodSeconds ?? 2,
    identity: k.identity ?? nodeName,
    kubeconfig: k.kubeconfig ?? null,
    apiServer: k.apiServer ?? null,
    connectTimeout: cluster.connectTimeout ?? 10,
  };
}

/** One API request's bound: `connectTimeout`, and at most half the round's own bound. */
export function requestTimeoutMs(s: KubernetesSettings): number {
  return Math.min(s.connectTimeout, s.renewDeadlineSeconds / 2) * 1000;
}
