// The filesystem backend's entry point for the cluster manager (spec 05 §8).
import type { BackendFactory } from '../types.ts';
import { FilesystemBackend } from './backend.ts';

export { CLOCK_SKEW_ENV } from './settings.ts';
export { FilesystemBackend };

export const createFilesystemBackend: BackendFactory = (cluster, host) =>
  new FilesystemBackend(cluster, host);
