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

/** The message of a thrown value (an Error's message, else its string form), for log lines and API bodies. */
export const errorText = (e: unknown): string => (e as Error)?.message ?? String(e);
