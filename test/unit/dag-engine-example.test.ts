// example/dag loads as the daemon loads it, with the DAGs and task kinds the README walks through.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';

describe('example/dag', () => {
  it('loads: a fan-out ETL, a gated release with a sensor, and a diamond', () => {
    const dir = join(import.meta.dirname, '..', '..', 'example', 'dag');
    const cfg = loadConfig(join(dir, 'cronstable.yaml'), { nowMs: Date.now(), cwd: dir, euid: 0 });
    expect(cfg.dags.map((d) => d.name)).toEqual(['orders-etl', 'release-train', 'data-quality-gate']);
    const release = cfg.dags[1]!;
    expect(release.cron).toBeNull();
    expect(release.tasks.map((t) => t.type)).toEqual(['task', 'approval', 'sensor', 'task']);
    expect(cfg.dags[0]!.tasks[1]!.expand).toEqual({ fromTask: 'discover', key: 'shards' });
    expect(cfg.web?.listen).toEqual(['http://127.0.0.1:8080']);
  });
});
