// The filesystem backend's conformance driver: three contenders in this process, each with its
// own store connection (worker lanes) on one temp state directory. The store's faults are real
// SQLite ones: another connection holding BEGIN EXCLUSIVE (unreachable), another writer taking
// the lease row (lose), a renew carrying the old fence (the stale write).
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { FilesystemBackend } from '../../../src/cluster/filesystem/index.ts';
import { openStore } from '../../../src/store/index.ts';
import type { Lease } from '../../../src/store/types.ts';
import { type ConformanceDriver, type Contender, contenderParts, leaseFleet, leaseTiming } from './driver.ts';

const require = createRequire(import.meta.url);
const Better = require('better-sqlite3') as new (
  file: string,
  opts?: { timeout?: number },
) => { exec(sql: string): void; prepare(sql: string): { run(...p: unknown[]): unknown }; close(): void };

const TTL = 3;
const ELECTION = 'cluster/leader';

export const filesystemDriver: ConformanceDriver = {
  kind: 'filesystem',
  unavailable: () => null,
  // ttl 3: renew every 1 s, a round bounded by 1 s; takeover once the expiry is 1 s past; a
  // released lease is taken on a survivor's next round: within renew + 1 round.
  timing: leaseTiming(TTL, TTL + 2, TTL + 2, 2),
  failureLog: /filesystem election round failed/,
  recoveryLog: /cluster: filesystem election rounds succeed again/,
  releaseLog: /^INFO cluster: released cluster\/leader$/,

  fleet(names, skews = []) {
    const dir = mkdtempSync(join(tmpdir(), 'cronstable-conformance-fs-'));
    const file = join(dir, 'cronstable.db');
    const cluster = {
      backend: 'filesystem' as const,
      filesystem: { path: dir, ttl: TTL, topology: 'shared' as const },
    };
    const nodes: Contender[] = names.map((name, i) => {
      const { clock, host } = contenderParts(name, skews[i] ?? 0);
      // Several contenders in one process: each its own holder token.
      const opts = { tokenSuffix: (0xa00000000000 + i).toString(16), env: {} };
      return { name, backend: new FilesystemBackend(cluster, host, opts), clock, host, dead: false };
    });
    return leaseFleet(nodes, async () => {
      const outsider = await openStore({
        path: dir,
        namespace: 'default',
        topology: 'shared',
        inline: true,
        writer: 'conformance',
      });
      let locker: InstanceType<typeof Better> | null = null;
      return {
        async cut() {
          locker = new Better(file, { timeout: 0 });
          locker.exec('BEGIN EXCLUSIVE');
        },
        async heal() {
          locker?.exec('ROLLBACK');
          locker?.close();
          locker = null;
        },
        async steal() {
          // Another writer moves the row on: a new holder and the next fence, live for a ttl.
          const db = new Better(file, { timeout: 2000 });
          try {
            db.prepare(
              "UPDATE leases SET holder = 'thief#0123456789ab', fence = fence + 1, expires_at = ? WHERE ns = 'default' AND name = ?",
            ).run(Date.now() / 1000 + TTL, ELECTION);
          } finally {
            db.close();
          }
        },
        fenceOf: () => outsider.leaseRead(ELECTION),
        leaseBlock: (n, leader) => ({
          path: dir,
          electionName: ELECTION,
          identity: n.name,
          holder: leader.name,
          fence: expect.any(Number),
        }),
        // The store's own renew primitive, as the stale holder would call it.
        staleWrite: async (_holder, fence) =>
          (await outsider.leaseRenew(fence as Lease, TTL)) === null ? 'refused' : 'accepted',
        async dispose() {
          await outsider.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    });
  },
};
