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
