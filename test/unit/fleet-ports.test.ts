// The fleet's free ports are claimed across processes: a port handed out by one test worker (or the
// fleet runner) is never handed out by another while its owner lives, even while nothing is bound
// to it (a daemon between a crash and its restart), and a dead owner's claim is taken over.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, reserve } from '../../scripts/fleet/ports.ts';

const dirs: string[] = [];
const claimDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'ports-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('port claims', () => {
  it('a port is claimed once: a second claim, from the same process, is refused', () => {
    const dir = claimDir();
    expect(reserve(20001, dir)).toBe(true);
    expect(readFileSync(join(dir, '20001'), 'utf8')).toBe(String(process.pid));
    expect(reserve(20001, dir)).toBe(false);
    expect(reserve(20002, dir)).toBe(true);
  });

  it('a live process keeps its claim; a claim being written (no id yet) is kept too', async () => {
    const dir = claimDir();
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dir, '20003'), String(other.pid));
      expect(reserve(20003, dir)).toBe(false);
      writeFileSync(join(dir, '20004'), '');
      expect(reserve(20004, dir)).toBe(false);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it("a dead process's claim is taken over", () => {
    const dir = claimDir();
    const gone = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' });
    writeFileSync(join(dir, '20005'), gone.stdout.trim());
    expect(reserve(20005, dir)).toBe(true);
    expect(readFileSync(join(dir, '20005'), 'utf8')).toBe(String(process.pid));
  });

  it('an unwritable claim directory grants the claim (the bind check still guards)', () => {
    const dir = claimDir();
    const file = join(dir, 'not-a-dir');
    writeFileSync(file, '');
    expect(reserve(20006, file)).toBe(true);
  });

  it('freePort hands out distinct bindable ports, each claimed by this process', async () => {
    const ports = await Promise.all(Array.from({ length: 8 }, () => freePort()));
    expect(new Set(ports).size).toBe(8);
    const dir = join(tmpdir(), `cronstable-ports-${process.getuid?.() ?? 'user'}`);
    for (const p of ports) {
      expect(p).toBeGreaterThanOrEqual(15000);
      expect(existsSync(join(dir, String(p))), `claim for ${p}`).toBe(true);
      expect(readFileSync(join(dir, String(p)), 'utf8')).toBe(String(process.pid));
    }
  });
});
