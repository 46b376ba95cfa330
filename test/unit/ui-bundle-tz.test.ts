// The browser dashboard bundles the schedule engine with tzdb-browser.ts in place of tzdb.ts
// (scripts/build-ui.mjs): the stand-in must offer every export the reader does, with the same types,
// and the page's script must not carry the zone-file reader.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as files from '../../src/schedule/tzdb.ts';
import * as browser from '../../src/schedule/tzdb-browser.ts';

// A compile-time check (npm run check): the stand-in is assignable to the reader's module type.
const sameShape: typeof files = browser;

describe('the browser stand-in for the zone-file reader', () => {
  it('exports exactly what tzdb.ts exports', () => {
    expect(Object.keys(browser).sort()).toEqual(Object.keys(files).sort());
    expect(sameShape.zoneFile('Europe/Berlin')).toBeNull();
  });

  it('answers as a host without zone files does, so the engine stays on Intl', () => {
    expect(browser.zoneFile('Europe/Berlin')).toBeNull();
    expect(browser.hostZoneFromSystem({ TZ: 'Europe/Berlin' })).toBeNull();
    expect(browser.zoneinfoDir()).toBe('');
    expect(() => browser.clearZoneFiles()).not.toThrow();
  });

  it("the page's script holds neither the zoneinfo path nor the TZif reader", () => {
    const generated = 'src/web/generated/assets.ts';
    expect(existsSync(generated), 'npm test builds the dashboard first').toBe(true);
    const text = readFileSync(generated, 'utf8');
    const js = text.slice(text.indexOf('APP_JS'), text.indexOf('APP_CSS'));
    expect(js.length).toBeGreaterThan(10_000);
    // Booleans, not toContain: a failure would print the whole 240 KB script.
    for (const mark of ['/usr/share/zoneinfo', '/etc/localtime', 'getBuiltinModule'])
      expect(js.includes(mark), `the page's script contains ${mark}`).toBe(false);
  });
});
