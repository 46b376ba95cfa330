/** The one error family of cronstable: every error carries a stable machine-readable code. */
export class CronstableError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CronstableError';
  }
}

export interface ErrorTextOptions {
  /** The stack (which begins with the message) where the value has one: for crashes and bugs. */
  stack?: boolean;
  /** Lead with the value's string `code` (ECONNREFUSED, EPROTO...) when the text does not name it. */
  code?: boolean;
}

/**
 * The text of a thrown value, for log lines, API bodies and panels: an Error's message (its name when
 * the message is empty; its stack when asked), else its string form. The one place a thrown value
 * becomes text: test/unit/error-text.test.ts fails on a copy of the idiom elsewhere under src/.
 */
export function errorText(e: unknown, o: ErrorTextOptions = {}): string {
  const v = e as { message?: unknown; stack?: unknown; code?: unknown; name?: unknown } | null | undefined;
  const own = (key: 'message' | 'stack' | 'name') =>
    typeof v?.[key] === 'string' ? (v[key] as string) : undefined;
  // An Error thrown without a message still says what it is (`TypeError`, `AbortError`).
  const message = own('message') === '' ? (own('name') ?? '') : own('message');
  const text = (o.stack ? own('stack') : undefined) ?? message ?? String(e);
  const code = o.code && typeof v?.code === 'string' ? v.code : '';
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}
