// Counts reads of Intl's date formatting: `formatToParts`, and `format` (an accessor on the
// prototype, so its getter is what is counted). A zone's offsets come from these on a host
// without tz files (src/schedule/zone.ts, intlSource).
import { vi } from 'vitest';

export interface IntlReads {
  count(): number;
  restore(): void;
}

export function spyIntlReads(): IntlReads {
  const parts = vi.spyOn(Intl.DateTimeFormat.prototype, 'formatToParts');
  // typed as a method, defined as a getter
  const format = vi.spyOn(Intl.DateTimeFormat.prototype as unknown as { format: unknown }, 'format', 'get');
  return {
    count: () => parts.mock.calls.length + format.mock.calls.length,
    restore: () => {
      parts.mockRestore();
      format.mockRestore();
    },
  };
}
