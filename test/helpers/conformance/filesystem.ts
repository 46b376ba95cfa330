// The filesystem backend's conformance driver: three contenders in this process, each with its
// own store connection (worker lanes) on one temp state directory. The store's faults are real
// SQLite ones: another connection holding BEGIN EXCLUSIVE (unreachable), another writer taking
// the lease row (lose), a renew carrying the old fence (the stale write).
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilesystemBackend } from '../../../src/cluster/filesystem/index.ts';
import { openStore } from '../../../src/store/index.ts';
import type { Lease } from '../../../src/store/types.ts';
import {
  type ConformanceDriver,
  type ConformanceFleet,
  type Contender,
  contenderParts,
  startAll,
  stopAll,
} from './driver.ts';

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
  // ttl 3: renew every 1 s, a round bounded by 1 s; takeover once the expiry is 1 s past.
  timing: {
    acquireMs: 3000,
    ttlMs: TTL * 1000,
    failoverMs: (TTL + 2) * 1000,
    demoteMs: (TTL - 1) * 1000,
    quorumLossMs: TTL * 1000 + 1000,
    recoverMs: (TTL + 2) * 1000,
    overlapMs: 0,
  },
  failureLog: /filesystem election round failed/,
  recoveryLog: /cluster: filesystem election rounds succeed again/,

  async fleet(names, skews = []): Promise<ConformanceFleet> {
    const dir = mkdtempSync(join(tmpdir(), 'cronstable-conformance-fs-'));
    const nodes: Contender[] = names.map((name, i) => {
      const { clock, host } = contenderParts(name, skews[i] ?? 0);
      const backend = new FilesystemBackend(
        {
          backend: 'filesystem',
          connectTimeout: 10,
          filesystem: { path: dir, ttl: TTL, topology: 'shared' },
        },
        host,
        // Several contenders in one process: each its own holder token.
        { tokenSuffix: (0xa00000000000 + i).toString(16), env: {} },
      );
      return { name, backend, clock, host, dead: false };
    });
    await startAll(nodes);
    const outsider = await openStore({
      path: dir,
      namespace: 'default',
      topology: 'shared',
      inline: true,
      writer: 'conformance',
    });
    let locker: InstanceType<typeof Better> | null = null;
    const file = join(dir, 'cronstable.db');
    const heal = async () => {
      locker?.exec('ROLLBACK');
      locker?.close();
      locker = null;
    };
    return {
      nodes,
      async cut() {
        locker = new Better(file, { timeout: 0 });
        locker.exec('BEGIN EXCLUSIVE');
      },
      heal,
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
      fenceOf: async () => outsider.leaseRead(ELECTION),
      async staleWrite(_holder, fence) {
        // The store's own renew primitive, as the stale holder would call it.
        return (await outsider.leaseRenew(fence as Lease, TTL)) === null ? 'refused' : 'accepted';
      },
      freeze: async (n) => n.clock.freeze(),
      thaw: async (n) => n.clock.thaw(),
      // A frozen process that never wakes: its lease is never released.
      crash: async (n) => n.clock.freeze(),
      async close() {
        await heal();
        await stopAll(nodes);
        await outsider.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};
