// JSON-RPC error codes and the one error type every MCP handler throws for a protocol fault
// (spec 07 §2.6): the transport answers an RpcError with exactly its code and message.
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const RESOURCE_NOT_FOUND = -32002;
export const PARSE_ERROR = -32700;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export const internalError = () => new RpcError(INTERNAL_ERROR, 'internal error');

/** A plain JSON object (what `params` and `arguments` must be). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The deepest nesting an MCP request's `id` or arguments may carry (spec 07 §2.6, §7): refused
 * before any recursive code (schema checks, redaction, JSON.stringify) meets it. Real MCP
 * arguments stay within a handful of levels.
 */
export const MCP_MAX_DEPTH = 64;
