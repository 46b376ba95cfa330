// One-line descriptions of fetch (undici) failures, built from the error chain so that
// callers can mask secrets (hosts, ports, URL parts) in them before logging.
import { errorText } from '../util/errors.ts';

/** A one-line description of a fetch failure built from the error chain. */
export function describeFetchError(err: unknown): string {
  const parts: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 4; depth++) {
    if (cur instanceof Error) {
      if (cur.name === 'TimeoutError' || cur.name === 'AbortError') {
        parts.push('request timed out');
        break;
      }
      if (cur instanceof AggregateError && cur.errors.length > 0) {
        parts.push(cur.errors.map((e) => errorText(e)).join('; '));
        break;
      }
      const code = (cur as { code?: unknown }).code;
      parts.push(cur.message || (typeof code === 'string' ? code : cur.name));
      cur = (cur as { cause?: unknown }).cause;
    } else {
      parts.push(String(cur));
      break;
    }
  }
  return parts.join(': ');
}
