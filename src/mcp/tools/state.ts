// The `state` toolset (spec 07 §4.2 #24): the read-only state inspector for a model. It reads through
// src/api/state.ts like `/state*` does; KV values are redacted to type and size (spec 07 §7) and
// log streams are never served.
import { z } from 'zod';
import {
  isLogStream,
  modelDocuments,
  NO_STORE,
  stateOverview,
  stateRecords,
  streamLength,
} from '../../api/state.ts';
import {
  modelDocumentsSchema,
  stateOverviewSchema,
  stateRecordsSchema,
} from '../../api/wire/state.schema.ts';
import { type ToolDef, toolError, toolOk } from '../tool.ts';

const input = z.strictObject({
  ns: z.string().optional().describe('a document namespace: kv/<scope>, cursor/<scope> or idem/<scope>'),
  stream: z.string().optional().describe('a record stream (runs/<job>, …); log streams are refused'),
  limit: z
    .number()
    .int()
    .optional()
    .describe('documents or records to return, default and ceiling mcp.maxRows'),
});

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

// One object for the three answers (an MCP output schema is an object): the overview's `documents`
// lists namespaces and its `records` is the inventory; a namespace answer lists documents, a stream
// answer its records.
const output = z.object({
  ...stateOverviewSchema.partial().shape,
  stream: z.string().optional(),
  records: z
    .union([stateRecordsSchema.shape.records, stateOverviewSchema.shape.records.unwrap()])
    .optional()
    .describe("a stream's records, or the overview's inventory (null when the store could not list it)"),
  namespace: z.string().optional().describe("the store's namespace, or the document namespace read"),
  documents: z
    .array(
      z.union([
        modelDocumentsSchema.shape.documents.element,
        stateOverviewSchema.shape.documents.unwrap().element,
      ]),
    )
    .optional(),
  total: z.number().int().optional().describe('documents in the namespace, or records in the stream'),
  returned: z.number().int().optional(),
});

export const stateTools: ToolDef[] = [
  {
    name: 'cron_inspect_state',
    title: 'Inspect state store',
    description:
      "Reads the state store's metadata: without arguments the inventory; with ns one document namespace " +
      '(KV values shown as type and size only); with stream its newest records (limit defaults to the row limit).',
    toolset: 'state',
    mutation: false,
    input,
    output,
    async run(args: z.infer<typeof input>, ctx) {
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
  },
];
