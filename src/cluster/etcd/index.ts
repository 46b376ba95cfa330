// The etcd backend's entry point for the cluster manager (spec 05 §9).
import type { BackendFactory } from '../types.ts';
import { EtcdBackend } from './backend.ts';

export const createEtcdBackend: BackendFactory = (cluster, host) => new EtcdBackend(cluster, host);

export { EtcdBackend };
