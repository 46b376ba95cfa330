// Job, DAG and task names travel into logs, URLs, HTTP headers, environment variables and the
// store's keys: a name must be printable text that encodes to valid UTF-8.

/** Why `name` cannot be a name (e.g. "contains a NUL character"), or null when it can. */
export function nameProblem(name: string): string | null {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0) return 'contains a NUL character';
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
      return `contains a control character (U+${c.toString(16).toUpperCase().padStart(4, '0')})`;
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = name.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
      else return 'contains an unpaired surrogate (it cannot be encoded as UTF-8)';
    }
  }
  return null;
}
