// Issue 14 item 8: `cronstable ... | head -1` is the normal end of a pipeline. When the reader of
// our stdout goes away, every verb exits 0 without a trace on stderr (the daemon stops
// gracefully, as on SIGTERM).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTree } from '../helpers/tmp.ts';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'cronstable.mjs');

/** Runs the CLI, closes its stdout after the first chunk, and returns how it ended. */
function headOne(
  args: string[],
  cwd?: string,
): Promise<{ code: number | null; stderr: string; first: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUNDLE, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let first = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.stdout.once('data', (c: Buffer) => {
      first = c.toString();
      child.stdout.destroy();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cronstable ${args.join(' ')} did not end after its reader went away:\n${stderr}`));
    }, 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, first });
    });
  });
}

describe('a reader that goes away (EPIPE)', () => {
  it('next: exits 0 with nothing on stderr', async () => {
    const r = await headOne(['next', '* * * * * * *', '-n', '100000']);
    expect(r.first).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('next in a time zone, and --help: exit 0 with no stack trace', async () => {
    const zoned = await headOne(['next', '0 0 * * *', '-n', '100000', '--tz', 'Europe/Paris']);
    expect(zoned.code).toBe(0);
    expect(zoned.stderr).toBe('');
    const help = await headOne(['--help']);
    expect(help.first).toContain('usage: cronstable');
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
  });

  it('the daemon: stops gracefully with exit 0 when its output reader goes away', async () => {
    const dir = writeTree({}, true);
    const file = join(dir, 'jobs.yaml');
    writeFileSync(
      file,
      'jobs:\n  - name: chatty\n    command: "seq 1 20000"\n    schedule: "* * * * * * *"\n    captureStdout: true\n',
    );
    const r = await headOne(['-c', file, '--shutdown-timeout', '2'], dir);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/EPIPE|Error:|\n\s+at /);
  });
});
