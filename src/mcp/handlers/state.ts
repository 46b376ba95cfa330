// The `state` toolset's handler (spec 07 §4.2 #24): the read-only state inspector for a model. It
// reads through src/api/state.ts like `/state*` does; KV values are redacted to type and size (spec
// 07 §7) and log streams are never served. Its schemas are in src/mcp/tools/state.schema.ts.
import {
  isLogStream,
  modelDocuments,
  NO_STORE,
  stateOverview,
  stateRecords,
  streamLength,
} from '../../api/state.ts';
import { handlerFor, toolError, toolOk } from '../tool.ts';
import type { StateSchemas } from '../tools/state.schema.ts';

const tool = handlerFor<StateSchemas>();

/** Checks before any store read, in the order the spec lists them; null when the call may proceed. */
export function stateRefusal(
  args: { ns?: string | undefined; stream?: string | undefined },
  hasStore: boolean,
) {
  if (args.ns !== undefined && args.stream !== undefined) return 'pass at most one of `ns` or `stream`';
  if (args.ns === undefined && args.stream === undefined) return null;
  if (!hasStore) return NO_STORE;
  if (args.stream !== undefined) {
    if (args.stream === '') return 'a stream is required';
    if (isLogStream(args.stream)) return 'log streams carry raw output and are not inspectable';
  }
  return null;
}

export const stateHandlers = [
  tool({
    name: 'cron_inspect_state',
    title: 'Inspect state store',
    description:
      "Reads the state store's metadata: without arguments the inventory; with ns one document namespace " +
      '(KV values shown as type and size only); with stream its newest records (limit defaults to the row limit).',
    toolset: 'state',
    mutation: false,
    async run(args, ctx) {
      const c = ctx.deps.ctx;
      const refused = stateRefusal(args, c.store !== null);
      if (refused) return toolError(refused);
      if (args.ns !== undefined) {
        const r = await modelDocuments(c, args.ns, ctx.rows(args.limit));
        return r.ok ? toolOk(`state documents in '${args.ns}'`, r.body) : toolError(r.error);
      }
      if (args.stream !== undefined) {
        const r = await stateRecords(c, args.stream, ctx.rows(args.limit));
        if (!r.ok) return toolError(r.error);
        const returned = r.body.records.length;
        const total = Math.max(returned, await streamLength(c, args.stream).catch(() => returned));
        return toolOk(`state records in '${args.stream}'`, { ...r.body, total, returned });
      }
      const overview = await stateOverview(c);
      return toolOk(`state store enabled=${overview.enabled}`, overview);
    },
  }),
];
