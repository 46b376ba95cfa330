// The tools as served against the tools as written (issue 30): the daemon serves the handlers with
// the JSON Schemas committed in src/mcp/handlers/schemas.json and checks arguments against them
// (src/mcp/schema-check.ts), never loading zod. So the file must be what the zod schemas derive, the
// served catalogue must list exactly what the written one does, and every argument fault must be
// answered as it was when zod checked it: the oracle below is the registry's former zod path
// (required strings first, then safeParse, a confirm-only fault refused by the confirm rule).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SCHEMAS_FILE, schemasText } from '../../scripts/mcp-schemas.ts';
import type { ApiDeps } from '../../src/api/deps.ts';
import { requiredStrings } from '../../src/api/json-schema.ts';
import { resolveMcpSettings } from '../../src/config/mcp.ts';
import { ALL_HANDLERS, servedTools } from '../../src/mcp/handlers/index.ts';
import { ToolRegistry } from '../../src/mcp/registry.ts';
import { confirmRefusal, type ServedTool, type ToolDef, toolOk } from '../../src/mcp/tool.ts';
import { ALL_TOOLS } from '../../src/mcp/tools/index.ts';
import { Logger, setSink } from '../../src/util/log.ts';

const EVERYTHING = resolveMcpSettings({
  enabled: true,
  readOnly: false,
  toolsets: ['observe', 'act', 'dags', 'state'],
});
const registry = (tools: readonly (ToolDef | ServedTool)[]) =>
  new ToolRegistry(tools, EVERYTHING, {} as ApiDeps, { log: new Logger('cronstable') });

describe('the committed JSON Schemas', () => {
  it('are what the zod schemas derive (regenerate: node --import tsx scripts/mcp-schemas.ts)', () => {
    expect(readFileSync(SCHEMAS_FILE, 'utf8')).toBe(schemasText());
  });

  it('serve every handler, and tools/list is the same served or written', () => {
    expect(ALL_HANDLERS.map((h) => h.name)).toEqual(ALL_TOOLS.map((t) => t.name));
    expect(registry(servedTools()).tools).toEqual(registry(ALL_TOOLS).tools);
  });
});

/** zod's issues in the words the registry gave them. */
function zodText(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((i) =>
      i.code === 'unrecognized_keys'
        ? `unknown argument(s): ${i.keys.map((k) => `'${k}'`).join(', ')}`
        : `invalid argument '${i.path.map(String).join('.')}': ${i.message.replace(/^Invalid input: /, '')}`,
    )
    .join('; ');
}

/** What the registry answered when zod checked the arguments ('ran' = the tool ran). */
function formerAnswer(tool: ToolDef, args: Record<string, unknown>): string {
  for (const key of requiredStrings(tool.input.toJSONSchema() as Record<string, unknown>)) {
    const v = args[key];
    if (typeof v !== 'string' || v === '') return `missing or empty required string argument: '${key}'`;
  }
  const parsed = tool.input.safeParse(args);
  if (parsed.success) return 'ran';
  const m = tool.mutation;
  if (m !== false && parsed.error.issues.every((i) => i.path[0] === 'confirm'))
    return confirmRefusal(m.gerund, args.confirm)?.text ?? zodText(parsed.error.issues);
  return zodText(parsed.error.issues);
}

const VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  1,
  -1,
  2.5,
  721,
  1e300,
  -1e300,
  '',
  'x',
  'true',
  [],
  {},
  [1],
  { a: 1 },
];

/** Arguments every required key of which holds a valid value. */
function validBase(schema: Record<string, unknown>): Record<string, unknown> {
  const props = schema.properties as Record<string, { type?: string; enum?: unknown[] }>;
  const out: Record<string, unknown> = {};
  for (const key of (schema.required ?? []) as string[]) {
    const p = props[key]!;
    out[key] = p.enum ? p.enum[0] : p.type === 'string' ? 'x' : p.type === 'boolean' ? true : 1;
  }
  return out;
}

describe('argument checks against the served schemas', () => {
  afterEach(() => setSink(null));

  it('answer every fault over the whole catalogue as the zod checks did', async () => {
    const served = registry(servedTools().map((t) => ({ ...t, run: async () => toolOk('ran', {}) })));
    const caller = { remoteAddress: null, userAgent: null };
    setSink(() => {}); // the audit lines of the mutating tools
    let compared = 0;
    for (const tool of ALL_TOOLS) {
      const schema = tool.input.toJSONSchema() as Record<string, unknown>;
      const props = schema.properties as Record<string, { enum?: unknown[] }>;
      const base = validBase(schema);
      if (tool.mutation !== false) base.confirm = true;
      const cases: Record<string, unknown>[] = [{}, base, { ...base, zz: 1 }, { ...base, zz: 1, yy: [] }];
      for (const [key, prop] of Object.entries(props)) {
        const { [key]: _, ...without } = base;
        cases.push(without);
        for (const v of [...VALUES, ...(prop.enum ?? [])]) {
          cases.push({ ...base, [key]: v });
          cases.push({ ...base, [key]: v, zz: 1 });
          if (key !== 'confirm' && tool.mutation !== false) cases.push({ ...base, [key]: v, confirm: 'yes' });
        }
      }
      for (const args of cases) {
        const r = await served.call(tool.name, args, caller);
        const text = r.content[0]!.text;
        expect(text, `${tool.name} ${JSON.stringify(args)}`).toBe(formerAnswer(tool, args));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(2000);
  });
});
