// The in-process API layer (issue 21 "one source of truth"): every REST route and every MCP tool that
// shares a payload calls the same function here, so a route and its tool cannot disagree. A function
// returns an ApiResult; the route turns it into a Response (`answer()`), the tool into a result.

/** A payload, or an error status with its message (the REST body is `{"error": message}`). */
export type ApiResult<T> =
  | { ok: true; body: T }
  | { ok: false; status: 400 | 403 | 404 | 409 | 500 | 503; error: string };

export const ok = <T>(body: T): ApiResult<T> => ({ ok: true, body });
export const fail = (status: 400 | 403 | 404 | 409 | 500 | 503, error: string): ApiResult<never> => ({
  ok: false,
  status,
  error,
});
