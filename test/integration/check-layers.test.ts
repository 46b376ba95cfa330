// The layer check (`npm run check`, scripts/check-layers.mjs) holds on the tree as it is, and fails on a
// deliberate upward import, a type-only one, a peer import and a folder no layer names.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLayers } from '../../scripts/layers.mjs';
import { writeTree as tree } from '../helpers/tmp.ts';

const repo = resolve(import.meta.dirname, '../..');
const script = join(repo, 'scripts/check-layers.mjs');
const doc = join(repo, 'docs/architecture.md');

/** The CLI on the real tree (its exit code is what npm run check reads). */
function cli(): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [script], { cwd: repo, encoding: 'utf8' });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** The same check in-process on a fixture tree: its problems, one line each. */
function check(root: string): { code: number; out: string } {
  const { problems, modules } = checkLayers(doc, root);
  return {
    code: problems.length ? 1 : 0,
    out: problems.length ? problems.join('\n') : `layers hold: ${modules} modules`,
  };
}

describe('the layer check', () => {
  it('passes on src/ as it is', () => {
    const r = cli();
    expect(r.out).toMatch(/layers hold: \d+ modules in \d+ layers/);
    expect(r.code).toBe(0);
  });

  it('fails on an upward import: the store reaching into the dashboard model', () => {
    const root = tree({
      'dashboard/types.ts': 'export const X = 1;\n',
      'store/types.ts': "import { X } from '../dashboard/types.ts';\nexport const Y = X;\n",
    });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.out).toContain('store/types.ts imports ../dashboard/types.ts: store may not import dashboard');
  });

  it('counts a type-only import and a lazy import()', () => {
    const root = tree({
      'web/app.ts': 'export type App = { a: 1 };\n',
      'mcp/x.ts': 'export const m = 1;\n',
      'cluster/types.ts': "import type { App } from '../web/app.ts';\nexport type C = App;\n",
      'jobapi/server.ts': "export const load = () => import('../mcp/x.ts');\n",
    });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.out).toContain('cluster may not import web');
    expect(r.out).toContain('jobapi may not import mcp');
  });

  it('fails on a peer import (web and mcp sit side by side over api)', () => {
    const root = tree({
      'mcp/transport.ts': 'export const T = 1;\n',
      'web/app.ts': "import { T } from '../mcp/transport.ts';\nexport const A = T;\n",
    });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.out).toContain('web and mcp are peers');
  });

  it('lets a folder import a lower one, and api/wire sit within api', () => {
    const root = tree({
      'util/clock.ts': 'export const now = () => 0;\n',
      'api/wire/jobs.schema.ts': 'export type Row = { a: number };\n',
      'dashboard/types.ts': "import type { Row } from '../api/wire/jobs.schema.ts';\nexport type R = Row;\n",
      'store/x.ts': "import { now } from '../util/clock.ts';\nexport const t = now();\n",
    });
    const r = check(root);
    expect(r.out).toContain('layers hold: 4 modules');
    expect(r.code).toBe(0);
  });

  it('names a folder that no layer places', () => {
    const root = tree({ 'newthing/a.ts': 'export const a = 1;\n' });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.out).toContain('its folder is in no layer');
  });
});
