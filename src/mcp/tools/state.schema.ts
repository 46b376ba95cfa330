// The argument and result schemas of the `state` toolset (spec 07 §4.2 #24); the handler is in
// src/mcp/handlers/state.ts.
import { z } from 'zod';
import {
  modelDocumentsSchema,
  stateOverviewSchema,
  stateRecordsSchema,
} from '../../api/wire/state.schema.ts';
import type { SchemaTable } from '../tool.ts';

const input = z.strictObject({
  ns: z.string().optional().describe('a document namespace: kv/<scope>, cursor/<scope> or idem/<scope>'),
  stream: z.string().optional().describe('a record stream (runs/<job>, …); log streams are refused'),
  limit: z
    .number()
    .int()
    .optional()
    .describe('documents or records to return, default and ceiling mcp.maxRows'),
});

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

export const stateSchemas = { cron_inspect_state: { input, output } } satisfies SchemaTable;

export type StateSchemas = typeof stateSchemas;
