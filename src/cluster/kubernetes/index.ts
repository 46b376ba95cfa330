// The Kubernetes backend's entry point for the cluster manager (spec 05 §10).
import type { BackendFactory } from '../types.ts';
import { KubernetesBackend } from './backend.ts';

export const createKubernetesBackend: BackendFactory = (cluster, host) =>
  new KubernetesBackend(cluster, host);

export { KubernetesBackend };
