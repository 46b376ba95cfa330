// How deep a parsed JSON value nests, checked without recursion (spec 07 §2.6, §7): a request
// whose `id` or arguments nest thousands deep must be refused before any recursive code
// (schema checks, redaction, JSON.stringify) meets it and overflows the stack.

/** The deepest nesting any request may carry; real MCP arguments stay within a handful. */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests objects/arrays more than `max` levels deep. */
export function nestedDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
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
