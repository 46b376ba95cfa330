// The TUI's view registry (src/tui/views/registry.ts): every folder under views/ exports exactly one descriptor
// and the registry lists each once; no two descriptors claim a folder, a surface kind or a board key; what the
// app reads from it (help rows, palette entries, work after each poll) follows the registry's order, whatever
// order the modules were imported in; and no module under tui/app or tui/views does anything on import but
// declare (a call at the top level of a module is how a view used to register itself).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Controller } from '../../src/tui/app/controller.ts';
import { Store } from '../../src/tui/app/state.ts';
import { ApiClient } from '../../src/tui/data/client.ts';
import { boardDescriptor } from '../../src/tui/views/board/board.ts';
import { DESCRIPTORS, VIEWS } from '../../src/tui/views/registry.ts';
import { viewTable } from '../../src/tui/views/table.ts';
import type { ViewDescriptor } from '../../src/tui/views/types.ts';
import { FixtureDaemon, fixtureJobs, type Harness, initialState, mountTui } from '../helpers/tui-fixture.ts';

const VIEWS_DIR = join(import.meta.dirname, '../../src/tui/views');
const folders = readdirSync(VIEWS_DIR).filter((f) => statSync(join(VIEWS_DIR, f)).isDirectory());
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.tsx?$/.test(f) ? [p] : [];
  });

/** A controller over the fixture's jobs that never reaches a daemon (nothing here polls). */
function idleController(): Controller {
  const ctl = new Controller({
    client: new ApiClient('http://127.0.0.1:9', null),
    store: new Store(initialState()),
    now: () => 0,
    mono: () => 0,
    prefsPath: null,
    writeRaw: () => {},
    quit: () => {},
    afterPoll: (c) => VIEWS.afterPoll(c),
  });
  ctl.acceptJobs(fixtureJobs());
  return ctl;
}

describe('the registry lists every view folder once', () => {
  it('has one descriptor per folder under views/, and no folder without one', () => {
    const listed = DESCRIPTORS.map((d) => d.folder);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual([...folders].sort());
  });

  it('takes each descriptor from a module of its own folder, which exports no other', async () => {
    for (const folder of folders) {
      const exported: ViewDescriptor[] = [];
      for (const file of sources(join(VIEWS_DIR, folder))) {
        const mod = (await import(file)) as Record<string, unknown>;
        for (const v of Object.values(mod))
          if (DESCRIPTORS.includes(v as ViewDescriptor)) exported.push(v as ViewDescriptor);
      }
      expect(
        exported.map((d) => d.folder),
        folder,
      ).toEqual([folder]);
    }
  });
});

describe('nothing collides', () => {
  it('gives every board key, panel key, surface kind and palette entry one owner', () => {
    const keys = DESCRIPTORS.flatMap((d) => (d.keys ?? []).flatMap((k) => k.keys));
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
    const kinds = DESCRIPTORS.flatMap((d) => (d.surfaces ?? []).map((v) => v.kind));
    expect(kinds.filter((k, i) => kinds.indexOf(k) !== i)).toEqual([]);
    expect(VIEWS.kinds).toEqual(kinds);
    // every key the board answers to is in the table: the board's own and the views' alike
    for (const k of ['j', 'enter', 'q', '?', 'i', 'm', 'w', 'a', 'C', 'F', 'E'])
      expect(VIEWS.boardKey(k)).toBeDefined();
    const ctl = idleController();
    const ids = VIEWS.paletteCommands({ ctl, views: VIEWS }).map((c) => c.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(ids).toContain('tail:heartbeat');
    ctl.stop();
  });

  it('refuses a table where two descriptors claim one key, kind or folder', () => {
    const run = () => {};
    expect(() =>
      viewTable([boardDescriptor, { folder: 'x', keys: [{ keys: ['q'], what: 'Quit', run }] }]),
    ).toThrow("board key 'q' is claimed twice");
    const help = DESCRIPTORS.find((d) => d.folder === 'help')!;
    expect(() => viewTable([help, { folder: 'x', surfaces: help.surfaces! }])).toThrow(
      "surface kind 'help' is claimed twice",
    );
    expect(() => viewTable([help, { folder: 'help' }])).toThrow("view folder 'help' is claimed twice");
  });
});

describe("the order is the registry's", () => {
  const each = <T>(list: readonly ViewDescriptor[], part: (d: ViewDescriptor) => readonly T[]): T[] =>
    list.flatMap(part);

  it('lists help rows and palette entries descriptor by descriptor, in list order', () => {
    const ctl = idleController();
    const ctx = { ctl, views: VIEWS };
    const help = (list: readonly ViewDescriptor[]) => viewTable(list).helpRows();
    const palette = (list: readonly ViewDescriptor[]) =>
      viewTable(list)
        .paletteCommands(ctx)
        .map((c) => c.id);
    const reversed = [...DESCRIPTORS].reverse();
    expect(help(DESCRIPTORS)).toEqual(each(DESCRIPTORS, (d) => help([d])));
    expect(help(reversed)).toEqual(each(reversed, (d) => help([d])));
    expect(help(reversed)).not.toEqual(help(DESCRIPTORS));
    expect(palette(DESCRIPTORS)).toEqual(each(DESCRIPTORS, (d) => palette([d])));
    expect(palette(reversed)).toEqual(each(reversed, (d) => palette([d])));
    expect(palette(reversed)).not.toEqual(palette(DESCRIPTORS));
    ctl.stop();
  });

  it('runs the work after a poll in list order', () => {
    const ran: string[] = [];
    const d = (folder: string): ViewDescriptor => ({ folder, afterPoll: () => void ran.push(folder) });
    const ctl = idleController();
    viewTable([d('b'), d('a'), d('c')]).afterPoll(ctl);
    expect(ran).toEqual(['b', 'a', 'c']);
    ctl.stop();
  });

  it('is the same whatever order the view modules are imported in', async () => {
    vi.resetModules();
    const files = folders.flatMap((f) => sources(join(VIEWS_DIR, f))).reverse();
    for (const file of files) await import(file);
    const fresh = (await import(
      '../../src/tui/views/registry.ts'
    )) as typeof import('../../src/tui/views/registry.ts');
    expect(fresh.VIEWS).not.toBe(VIEWS);
    expect(fresh.DESCRIPTORS.map((d) => d.folder)).toEqual(DESCRIPTORS.map((d) => d.folder));
    expect(fresh.VIEWS.helpRows()).toEqual(VIEWS.helpRows());
    expect(fresh.VIEWS.kinds).toEqual(VIEWS.kinds);
    vi.resetModules();
  });

  it('does nothing at the top level of a tui/app or tui/views module but declare', () => {
    const calls: string[] = [];
    for (const dir of ['app', 'views']) {
      for (const file of sources(join(VIEWS_DIR, '..', dir))) {
        const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
        for (const st of src.statements)
          if (ts.isExpressionStatement(st))
            calls.push(`${file.slice(file.indexOf('src/'))}:${st.getText(src).slice(0, 40)}`);
      }
    }
    expect(calls).toEqual([]);
  });
});

describe('the help sheet reads the registry', () => {
  const daemon = new FixtureDaemon();
  let h: Harness;
  beforeAll(() => daemon.start());
  afterAll(() => daemon.stop());
  afterEach(() => h?.close());

  it("shows every row in the registry's order (within the shared and the terminal-only sections)", async () => {
    h = mountTui(daemon, { rows: 80 });
    await h.press('?');
    const screen = h.text().split('\n');
    const extras = screen.findIndex((l) => l.includes('terminal extras'));
    const at = VIEWS.helpRows().map(([keys, what]) => {
      // the key column is 17 cells (the longest label and two spaces); a long text wraps after its first words
      const row = screen.findIndex((l) => l.includes(`${keys.padEnd(17)}${what.slice(0, 20)}`));
      expect(row, `${keys} ${what}`).toBeGreaterThan(0);
      return row;
    });
    for (const part of [at.filter((r) => r < extras), at.filter((r) => r > extras)])
      expect(part).toEqual([...part].sort((a, b) => a - b));
    // the panels' keys, from their descriptors
    expect(screen.join('\n')).toContain('Fleet view');
    expect(screen.join('\n')).toContain('Cron sandbox (schedule explainer)');
  });
});
