// The in-process API layer (issue 21 "one source of truth"): every REST route and every MCP tool that
// shares a payload calls the same function here, so a route and its tool cannot disagree. A function
// returns an ApiResult; the route turns it into a Response (`answer()`), the tool into a result.
import type { z } from 'zod';

/** A payload, or an error status with its message (the REST body is `{"error": message}`). */
export type ApiResult<T> =
  | { ok: true; body: T }
  | { ok: false; status: 400 | 404 | 409 | 500 | 503; error: string };

export const ok = <T>(body: T): ApiResult<T> => ({ ok: true, body });
export const fail = (status: 400 | 404 | 409 | 500 | 503, error: string): ApiResult<never> => ({
  ok: false,
  status,
  error,
});

/**
 * One REST route as `/openapi.json` documents it. `path` is OpenAPI style (`/jobs/{name}/runs`).
 * `response` is the zod schema of the 200 body (the same schema an MCP tool declares as its
 * `outputSchema` where the two share a payload); `contentType` defaults to application/json.
 */
export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  summary: string;
  /** Query parameters by name (all optional). */
  query?: Record<string, z.ZodType>;
  /** JSON request body, for POST routes that take one. */
  body?: z.ZodType;
  /** Schema of the success body; null when the success answer has no body. */
  response: z.ZodType | null;
  /** Success status when not 200. */
  status?: number;
  contentType?: 'application/json' | 'text/plain' | 'text/calendar' | 'text/event-stream' | 'text/html';
  /** Error statuses this route answers with `{"error": message}`. */
  errors?: number[];
}
