// Argument schemas the job and node tools share (spec 07 §4.1): a required string says which key is
// missing or empty in the reference's words; `confirm` takes only JSON true/false and its type error
// still tells the caller how to proceed; row counts are integers the context clamps.
import { z } from 'zod';
import { CONFIRM_TYPE_ERROR } from '../tool.ts';

export const requiredString = (key: string) => {
  const error = `missing or empty required string argument: '${key}'`;
  return z.string({ error }).min(1, { error });
};

export const confirmArg = z.boolean({ error: CONFIRM_TYPE_ERROR }).optional().describe('must be true to act');

/** The `name` of the job tools. */
export const jobNameArg = requiredString('name').describe('job name, as cron_list_jobs lists it');

/** `limit` / `tail` / `runs`: absent = maxRows, clamped to [1, maxRows] (never an error). */
export const rowsArg = z.number().int().optional().describe('how many, default and ceiling mcp.maxRows');
/** `offset`: absent = 0, negative = 0, past the end = an empty page. */
export const offsetArg = z.number().int().optional().describe('rows to skip, default 0');
