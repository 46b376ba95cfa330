// `cronstable mcp --check` (spec 07 §8.3): initialize, then tools/list, then one verdict line on
// stderr. Unlike the reference, a tools/list that fails is a failed check, not "0 tool(s)".
import { httpFailure, isObject, postMcp, type TransportOptions } from './post.ts';

/** `transport`: no daemon answered, and `message` is the whole verdict. */
type Step =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; message: string; transport?: boolean };

export async function check(opts: TransportOptions, err: (line: string) => void): Promise<number> {
  const init = await call(opts, opts.protocolVersion, 1, 'initialize', {
    protocolVersion: opts.protocolVersion,
    capabilities: {},
    clientInfo: { name: 'cronstable-mcp-check', version: '0' },
  });
  if (!init.ok) {
    err(`mcp check: ${init.transport ? init.message : `initialize failed (${init.message})`}`);
    return 1;
  }
  const pv = init.result.protocolVersion;
  const negotiated = typeof pv === 'string' && pv !== '' ? pv : opts.protocolVersion;
  const list = await call(opts, negotiated, 2, 'tools/list', {});
  if (!list.ok) {
    err(`mcp check: tools/list failed (${list.message})`);
    return 1;
  }
  if (!Array.isArray(list.result.tools)) {
    err('mcp check: tools/list failed (the reply has no tools array)');
    return 1;
  }
  err(`mcp check: ok - protocol ${negotiated}, ${list.result.tools.length} tool(s) at ${opts.endpoint}`);
  return 0;
}

async function call(
  opts: TransportOptions,
  protocolVersion: string,
  id: number,
  method: string,
  params: Record<string, unknown>,
): Promise<Step> {
  const outcome = await postMcp(
    opts,
    protocolVersion,
    JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  );
  if (outcome.kind === 'unreachable') return { ok: false, message: outcome.message, transport: true };
  if (outcome.status !== 200 || outcome.body.trim() === '')
    return { ok: false, message: httpFailure(outcome.status, outcome.body) };
  let reply: unknown;
  try {
    reply = JSON.parse(outcome.body);
  } catch {
    return { ok: false, message: 'the reply is not JSON' };
  }
  if (!isObject(reply)) return { ok: false, message: 'the reply is not a JSON-RPC response' };
  if (isObject(reply.error)) {
    const { code, message } = reply.error;
    return { ok: false, message: `JSON-RPC error ${String(code)}: ${String(message)}` };
  }
  if (!isObject(reply.result)) return { ok: false, message: 'the reply has no result' };
  return { ok: true, result: reply.result };
}
