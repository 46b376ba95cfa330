// Shared by the grand-tour example tests: assemble one node's config the way Docker and the local
// tour do (example/grand-tour/node-entrypoint.sh with ASSEMBLE_ONLY=1) and read it back.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeTree } from '../helpers/tmp.ts';

export const ROOT = join(import.meta.dirname, '..', '..');
export const EXAMPLE = join(ROOT, 'example', 'grand-tour');
export const ENTRYPOINT = join(EXAMPLE, 'node-entrypoint.sh');
export const BUNDLE = join(ROOT, 'dist', 'cronstable.mjs');

/** Runs the entrypoint in assemble-only mode; returns its exit status and output. */
export function assemble(env: Record<string, string>): {
  status: number | null;
  stdout: string;
  stderr: string;
} {
  const r = spawnSync('/bin/sh', [ENTRYPOINT], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', CONFIG_SRC: EXAMPLE, ASSEMBLE_ONLY: '1', ...env },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `cronstable -c DIR -v` on the bundle, from an unrelated working directory. */
export function validate(
  dir: string,
  env: Record<string, string> = {},
): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [BUNDLE, '-c', dir, '-v'], {
    cwd: '/',
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/**
 * One node's config directory (`cronstable.d`), assembled into a temp dir kept for the test file.
 * The cert files are empty: the loader reads `cluster.tls` paths as text only.
 */
export function assembledNode(nodeName = 'meridian-a'): string {
  const root = writeTree({}, true);
  const certs = join(root, 'certs');
  mkdirSync(certs);
  for (const f of ['ca.pem', `${nodeName}.pem`, `${nodeName}.key`]) writeFileSync(join(certs, f), '');
  const dir = join(root, 'cronstable.d');
  const r = assemble({
    NODE_NAME: nodeName,
    CONFIG_DIR: dir,
    CERT_DIR: certs,
    STATE_DIR: join(root, 'state'),
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return dir;
}
