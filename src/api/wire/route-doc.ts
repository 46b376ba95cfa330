// How `/openapi.json` documents one route, beside the schemas of its payloads.
import type { z } from 'zod';

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
  /** Sends an ETag and answers a matching If-None-Match with a bodiless 304 (spec 10 §4.10). */
  conditional?: boolean;
  /** Error statuses this route answers with `{"error": message}`. */
  errors?: number[];
}
