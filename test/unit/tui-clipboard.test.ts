// The clipboard beside OSC 52 (spec 08 §4.15): the first clipboard tool on PATH gets the text on stdin.
// The tool here is a real executable script on a temporary PATH that records what it was given.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clipboardTool, pipeToClipboard } from '../../src/tui/data/clipboard.ts';
import { until } from '../helpers/until.ts';

const dir = mkdtempSync(join(tmpdir(), 'tui-clip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tool(name: string, out: string): void {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho "$@" > ${out}.args\ncat > ${out}\n`);
  chmodSync(path, 0o755);
}

describe('clipboard tool', () => {
  it('is none when PATH has no clipboard tool', () => {
    expect(clipboardTool({ PATH: join(dir, 'nowhere') })).toBeNull();
  });

  it('pipes the text, UTF-8, to xclip -selection clipboard', async () => {
    const out = join(dir, 'xclip.out');
    tool('xclip', out);
    expect(clipboardTool({ PATH: dir })?.cmd).toBe('xclip');
    pipeToClipboard('echo "héllo" && 日本', { PATH: dir });
    await until('the tool to have read its stdin', 5000, async () =>
      existsSync(out) && readFileSync(out, 'utf8') !== '' ? true : null,
    );
    expect(readFileSync(out, 'utf8')).toBe('echo "héllo" && 日本');
    expect(readFileSync(`${out}.args`, 'utf8').trim()).toBe('-selection clipboard');
  });

  it('prefers pbcopy over wl-copy and xclip', () => {
    tool('wl-copy', join(dir, 'wl.out'));
    tool('pbcopy', join(dir, 'pb.out'));
    expect(clipboardTool({ PATH: dir })?.cmd).toBe('pbcopy');
  });
});
