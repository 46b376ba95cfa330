// The `@reboot` ran-set in etcd (spec 05 §3.3, §9): one plain key `<electionName>/reboot-ran`
// (not lease-bound, so it outlives every leader) holding `{"jobSetId","jobs":[…]}`. Writes are a
// compare-and-swap on the key's mod revision, re-read and merged up to three times, so two nodes
// recording different one-shots at once both land.
import type { EtcdClient } from './client.ts';
import { mergeRanSet, parseRanSet, type RanSet } from './wire.ts';

const WRITE_ATTEMPTS = 3;

export function ranSetKey(electionName: string): string {
  return `${electionName}/reboot-ran`;
}

export async function readRanSet(client: EtcdClient, electionName: string): Promise<RanSet | null> {
  const kv = await client.get(ranSetKey(electionName));
  return kv ? parseRanSet(kv.value) : null;
}

/** Adds `job` under `jobSetId`; resolves to the set as written. */
export async function writeRanSet(
  client: EtcdClient,
  electionName: string,
  jobSetId: string,
  job: string,
): Promise<RanSet> {
  const key = ranSetKey(electionName);
  for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
    const kv = await client.get(key);
    const next = mergeRanSet(kv ? parseRanSet(kv.value) : null, jobSetId, job);
    if (await client.putIfUnchanged(key, JSON.stringify(next), kv?.modRevision ?? '0')) return next;
  }
  throw new Error(`etcd: the @reboot ran-set kept changing under ${WRITE_ATTEMPTS} write attempts`);
}
