// How deeply a JSON text nests, found by scanning its brackets (strings skipped) without
// recursion: every later step that walks a parsed value recursively (validation, encoding,
// storage) would otherwise overflow the stack on a hostile body.

/** Deepest nesting accepted in a request body; a real value is nowhere near it. */
export const MAX_JSON_DEPTH = 512;

/** The bracket depth of a JSON text (0 for a scalar); stops counting once past `limit`. */
export function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/**
 * Whether a parsed value nests objects/arrays more than `max` levels deep, walked without
 * recursion: for values that arrive already parsed (an MCP request's `id` or tool arguments).
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) return true;
    for (const child of Object.values(node as object))
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
