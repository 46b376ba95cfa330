// The relay loop (spec 07 §8.2): stdin lines in, one POST each, JSON-RPC frames out. stdout carries
// nothing but frames, one per line; everything meant for a person goes to stderr. Lines are relayed
// one at a time, in order, so replies come back in the order the client asked.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { httpFailure, isObject, postMcp, type TransportOptions } from './post.ts';

export interface BridgeIo {
  stdin: Readable;
  /** One JSON-RPC frame, without its newline. */
  frame: (json: string) => void;
  /** One diagnostic line, without its newline. */
  err: (line: string) => void;
}

type Id = string | number | null | boolean | object;

const errorFrame = (id: Id, code: number, message: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });

/** Code for "the daemon did not give a JSON-RPC reply" (implementation-defined server error range). */
const UPSTREAM = -32001;

export async function relay(opts: TransportOptions, io: BridgeIo): Promise<number> {
  let protocolVersion = opts.protocolVersion;
  let attempted = false;
  let reached = false;
  const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
  for await (const raw of lines) {
    const line = raw.trim();
    if (line === '') continue;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      io.frame(errorFrame(null, -32700, 'parse error'));
      continue;
    }
    // The daemon would 400 a batch and the client would wait forever for replies: answer here.
    if (Array.isArray(msg)) {
      io.frame(errorFrame(null, -32600, 'batching unsupported'));
      continue;
    }
    const isRequest = isObject(msg) && 'id' in msg && !isResponse(msg);
    const id = isRequest ? ((msg as { id: Id }).id ?? null) : null;
    attempted = true;
    const outcome = await postMcp(opts, protocolVersion, line);
    if (outcome.kind === 'unreachable') {
      const text = outcome.message;
      if (isRequest) io.frame(errorFrame(id, UPSTREAM, text));
      else io.err(`cronstable mcp: ${text}`);
      continue;
    }
    reached = true;
    const body = outcome.body.trim();
    if (outcome.status === 200 && body !== '') {
      const reply = oneLine(body);
      if (isRequest && (msg as { method?: unknown }).method === 'initialize') {
        const negotiated = negotiatedVersion(reply);
        if (negotiated !== null) protocolVersion = negotiated;
      }
      if (isRequest) io.frame(reply);
      continue;
    }
    if (isRequest) io.frame(errorFrame(id, UPSTREAM, httpFailure(outcome.status, body)));
    else if (outcome.status !== 202 && outcome.status !== 200)
      io.err(`cronstable mcp: notification: ${httpFailure(outcome.status, body)}`);
  }
  if (attempted && !reached) {
    io.err(`cronstable mcp: the MCP endpoint at ${opts.endpoint} was never reachable`);
    return 1;
  }
  return 0;
}

/**
 * A client's JSON-RPC response (`id` plus `result` or `error`, no `method`) gets no reply: the
 * daemon answers it 202, and an error frame carrying its id would look like a reply to a request
 * the client never sent.
 */
const isResponse = (msg: Record<string, unknown>): boolean =>
  !('method' in msg) && ('result' in msg || 'error' in msg);

/** A frame must be one line; the daemon sends compact JSON, but a proxy in front might not. */
function oneLine(body: string): string {
  if (!/[\r\n]/.test(body)) return body;
  try {
    return JSON.stringify(JSON.parse(body));
  } catch {
    return body.replace(/[\r\n]+/g, ' ');
  }
}

function negotiatedVersion(reply: string): string | null {
  try {
    const parsed: unknown = JSON.parse(reply);
    if (!isObject(parsed) || !isObject(parsed.result)) return null;
    const v = parsed.result.protocolVersion;
    return typeof v === 'string' && v !== '' ? v : null;
  } catch {
    return null;
  }
}
