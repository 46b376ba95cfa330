// Puts this daemon's own `cronstable` first on the jobs' PATH (spec 03 §7), so a job can call
// `cronstable state ...` whatever is installed on the host: a tiny shell script that runs the
// same runtime and entry point as the daemon.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** The command line that starts this same program (Node bundle, tsx sources, or a Bun binary). */
export function selfCommand(): string[] {
  const entry = process.argv[1];
  const standalone =
    'bun' in process.versions && (!entry || entry.startsWith('/$bunfs') || entry.startsWith('B:/~BUN'));
  if (standalone) return [process.execPath];
  return [process.execPath, ...process.execArgv, ...(entry ? [entry] : [])];
}

export function installCliShim(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-bin-'));
  const file = join(dir, 'cronstable');
  writeFileSync(file, `#!/bin/sh\nexec ${selfCommand().map(quote).join(' ')} "$@"\n`);
  chmodSync(file, 0o755);
  process.env.PATH = `${dir}${delimiter}${process.env.PATH ?? ''}`;
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
