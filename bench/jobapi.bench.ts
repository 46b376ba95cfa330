// state.kv_roundtrip_200: seconds for 200 sequential KV set+get round trips through the job
// API client (loopback HTTP, bearer auth) against a local store (reference 0.25 s).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobApiClient } from '../src/jobapi/client.ts';
import { JobApiServer } from '../src/jobapi/server.ts';
import { openStore } from '../src/store/index.ts';
import { bestOf, type Metric } from './metric.ts';

const ROUND_TRIPS = 200;
const quiet = { debug: () => {}, info: () => {}, warning: () => {} };

export async function run(): Promise<Metric[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-bench-jobapi-'));
  // The daemon's configuration: worker-thread lanes on a single-node (WAL) store.
  const store = await openStore({ path: dir, namespace: 'bench', topology: 'single-node' });
  const server = await JobApiServer.start({ store, host: 'bench', logger: quiet });
  const { env } = server.register({ jobName: 'bench', attempt: 0, scheduledAt: null, allowedScopes: [] });
  const client = JobApiClient.fromEnv(env);
  try {
    let n = 0;
    const seconds = await bestOf(5, async () => {
      for (let i = 0; i < ROUND_TRIPS; i++) {
        const value = { rows: n++, ok: true };
        const set = await client.post('/v1/kv/set', { key: `k${i % 20}`, value });
        if (set.status !== 200) throw new Error(`kv/set answered ${set.status}`);
        const got = await client.get('/v1/kv/get', { key: `k${i % 20}` });
        if ((got.json as { value: { rows: number } }).value.rows !== value.rows)
          throw new Error('kv/get mismatch');
      }
    });
    return [{ metric: 'state.kv_roundtrip_200', value: Number(seconds.toFixed(4)), unit: 's', budget: 0.25 }];
  } finally {
    client.close();
    await server.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const m of await run()) process.stdout.write(`${JSON.stringify(m)}\n`);
}
