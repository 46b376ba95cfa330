// The daemon's host identity (spec 02 §3.3, spec 09 §6): its `HOSTNAME`, which the daemon sets to the
// OS host name at start when the environment lacks it.
import { hostname } from 'node:os';

export function daemonHost(): string {
  return process.env.HOSTNAME || hostname();
}
