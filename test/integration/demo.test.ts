// `npm start` runs the daemon on example/demo: its jobs fire on time.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/sinks.ts';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the demo config', () => {
  it('fires the 10-second pulse on its instants and the @reboot job once', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'cronstable.mjs'), '-c', 'example/demo'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const spawned: number[] = [];
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr!.on('data', (c: Buffer) => {
      const text = c.toString();
      err += text;
      for (const _ of text.matchAll(/Job pulse spawned/g)) spawned.push(Date.now());
    });
    try {
      await waitFor(() => spawned.length >= 2, 25_000, `two pulses; stderr:\n${err}`);
      for (const at of spawned) expect(at % 10_000).toBeLessThan(500);
      expect(out).toContain('pulse\n');
      expect(out).toContain('[on-boot stdout] cronstable started');
      expect(out.match(/cronstable started/g)).toHaveLength(1);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.on('exit', r));
    }
  }, 40_000);
});
