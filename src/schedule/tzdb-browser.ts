// The browser dashboard's stand-in for tzdb.ts, swapped in by scripts/build-ui.mjs: a page has no zone
// files to read, so every zone stays on Intl there and the file reader (and the TZif parser only it
// calls) need not ship in the page's script. test/unit/ui-bundle-tz.test.ts keeps the exports in step.
import type { TzifZone } from './tzif.ts';

export function zoneinfoDir(): string {
  return '';
}

export function zoneFile(_name: string): TzifZone | null {
  return null;
}

export function clearZoneFiles(): void {}

export function hostZoneFromSystem(_env?: Record<string, string | undefined>): string | null {
  return null;
}
