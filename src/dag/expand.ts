// Reading a mapped task's item list (spec 04 §5): what counts as a definitive empty fan-out, and the cap.
// The store read itself happens at the edge; this decides from the bytes it returned.

/** More items than this fail the placeholder instead of expanding (§3.6). */
export const MAX_MAPPED_ITEMS = 1000;

const INT64_LIMIT = 2n ** 63n;

export interface DecodedItems {
  items: unknown[];
  /** Why the list was taken as empty when it was not a usable list, for the WARNING the spec asks for. */
  warning: string | null;
}

/**
 * The payload of the newest XCom `<fromTask>/<key>`, or null when it was never published (or its blob is
 * gone): both are definitive, so they expand to `[]` rather than waiting. A store *error* is not a payload
 * and must never reach here (the caller retries on a later pass instead of freezing an empty fan-out).
 */
export function decodeItems(payload: Uint8Array | null): DecodedItems {
  if (payload === null) return { items: [], warning: 'the expand source published no such key' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(payload);
  } catch {
    return { items: [], warning: 'the expand payload is not valid UTF-8' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { items: [], warning: 'the expand payload is not valid JSON' };
  }
  if (!Array.isArray(value)) return { items: [], warning: 'the expand payload is not a JSON list' };
  if (hasNonPortableNumber(text))
    return { items: [], warning: 'the expand list holds a number outside portable JSON' };
  return { items: value, warning: null };
}

/**
 * An integer literal outside signed 64 bits, or a float literal that overflows to Infinity (`1e999`). The
 * text is scanned because JSON.parse has already turned `9223372036854775808` and `9.3e18` into the same
 * double, and only the first is an integer to the writer.
 */
function hasNonPortableNumber(text: string): boolean {
  const token = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
  for (let m = token.exec(text); m !== null; m = token.exec(text)) {
    const lit = m[0];
    if (lit.startsWith('"')) continue;
    if (/^-?\d+$/.test(lit)) {
      if (lit.length > 18) {
        const b = BigInt(lit);
        if (b >= INT64_LIMIT || b < -INT64_LIMIT) return true;
      }
    } else if (!Number.isFinite(Number(lit))) return true;
  }
  return false;
}

export function capMessage(count: number): string {
  return `mapped fan-out of ${count} items exceeds the cap of ${MAX_MAPPED_ITEMS}`;
}
