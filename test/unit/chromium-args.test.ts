// The browser tests' Chromium flags (scripts/chromium.ts): Chromium keeps only the last
// --disable-features switch, and the launch's args come after Playwright's, so ours must carry every
// feature the installed playwright-core turns off (no network to Google at start, no HTTPS upgrade
// of loopback pages, ...) besides the address-bar popup preload it adds.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARGS, OMNIBOX_POPUP_FEATURES, PLAYWRIGHT_DISABLED_FEATURES } from '../../scripts/chromium.ts';

/** The string literals of playwright-core's own `disabledFeatures` list, read from its bundle. */
function playwrightDisabledFeatures(): string[] {
  const root = dirname(createRequire(import.meta.url).resolve('playwright-core/package.json'));
  const source = readFileSync(join(root, 'lib', 'coreBundle.js'), 'utf8');
  const block = /disabledFeatures = \[([\s\S]*?)\]\.filter\(Boolean\)/.exec(source);
  if (!block)
    throw new Error('playwright-core no longer lists disabledFeatures in lib/coreBundle.js: read it again');
  const code = block[1]!
    .split('\n')
    .filter((line) => !line.trim().startsWith('//'))
    .join('\n');
  return [...code.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}

describe('Chromium flags of the browser tests', () => {
  it('repeat every feature playwright-core disables, since Chromium keeps only the last --disable-features', () => {
    const theirs = playwrightDisabledFeatures();
    expect(theirs.length).toBeGreaterThan(5);
    expect(theirs.filter((f) => !(PLAYWRIGHT_DISABLED_FEATURES as readonly string[]).includes(f))).toEqual(
      [],
    );
  });

  it('pass one --disable-features with both lists', () => {
    const switches = ARGS.filter((a) => a.startsWith('--disable-features='));
    expect(switches).toHaveLength(1);
    const features = switches[0]!.slice('--disable-features='.length).split(',');
    expect(features).toEqual([...PLAYWRIGHT_DISABLED_FEATURES, ...OMNIBOX_POPUP_FEATURES]);
  });
});
