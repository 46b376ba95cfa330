// `npm start` runs the daemon on example/demo: its jobs fire on time.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { waitFor } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the demo config', () => {
  it('fires the 10-second pulse on its instants and the @reboot job once', async () => {
    // The demo's own file but for its port: 8080 is where `npm run grand-tour` (grand-tour-cli,
    // maybe running beside this file) puts its first dashboard, and a demo daemon there answered
    // that test's unauthenticated probe in its place.
    const demo = readFileSync(join(ROOT, 'example', 'demo', 'cronstable.yaml'), 'utf8');
    expect(demo).toContain('http://127.0.0.1:8080');
    const port = await freePort();
    const dir = writeTree({
      'cronstable.yaml': demo.replace('http://127.0.0.1:8080', `http://127.0.0.1:${port}`),
    });
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'cronstable.mjs'), '-c', dir], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let spawned = 0;
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr!.on('data', (c: Buffer) => {
      const text = c.toString();
      err += text;
      spawned += text.match(/Job pulse spawned/g)?.length ?? 0;
    });
    try {
      await waitFor(() => spawned >= 2, 25_000, `two pulses; stderr:\n${err}`);
      // When each run started, as the daemon recorded it: the moment this process read the log
      // line also carries this worker's own lag (619 ms once on a loaded clean clone).
      const started = await until('two pulse runs in /jobs/pulse/runs', 10_000, async () => {
        const body = (await (await fetch(`http://127.0.0.1:${port}/jobs/pulse/runs`)).json()) as {
          runs: { started_at: string | null }[];
        };
        const at = body.runs.flatMap((r) => (r.started_at ? [Date.parse(r.started_at)] : []));
        return at.length >= 2 ? at : null;
      });
      for (const at of started) expect(at % 10_000).toBeLessThan(500);
      expect(out).toContain('pulse\n');
      expect(out).toContain('[on-boot stdout] cronstable started');
      expect(out.match(/cronstable started/g)).toHaveLength(1);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.on('exit', r));
    }
  }, 40_000);
});
