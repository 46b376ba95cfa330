// The tool registry in process (spec 07 §4.1): visibility counts over the whole 31-tool catalogue
// (small tools of our own with the spec's toolsets and kinds), the advertised schemas, argument
// validation and its messages, the row clamp, the confirm gate, the audit line and the counter.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApiDeps } from '../../src/api/deps.ts';
import type { McpSection } from '../../src/config/file-schema.ts';
import { resolveMcpSettings } from '../../src/config/mcp.ts';
import { McpEngine } from '../../src/mcp/engine.ts';
import { rowClamp, ToolRegistry } from '../../src/mcp/registry.ts';
import { RpcError } from '../../src/mcp/rpc.ts';
import {
  confirmRefusal,
  type Mutation,
  type ToolDef,
  type Toolset,
  toolError,
  toolOk,
} from '../../src/mcp/tool.ts';
import { CATALOGUE, inCatalogueOrder } from '../../src/mcp/tools/index.ts';
import { Logger, type LogRecord, setSink } from '../../src/util/log.ts';

const M = (destructive: boolean, idempotent: boolean, gerund: string): Mutation => ({
  destructive,
  idempotent,
  gerund,
});

/** Spec 07 §4.2: set and kind of each catalogue tool. */
const KIND: Record<string, [Toolset, false | Mutation]> = Object.fromEntries(
  CATALOGUE.map((name, i) => {
    if (i < 18) return [name, ['observe', false]];
    if (i < 23) return [name, ['dags', false]];
    if (i === 23) return [name, ['state', false]];
    const m: Record<string, [Toolset, Mutation]> = {
      cron_run_job: ['act', M(false, false, 'running')],
      cron_cancel_job: ['act', M(true, true, 'cancelling')],
      cron_pause_job: ['act', M(false, true, 'pausing')],
      cron_resume_job: ['act', M(false, true, 'resuming')],
      cron_trigger_dag: ['dags', M(false, false, 'triggering')],
      cron_backfill_dag: ['dags', M(true, false, 'backfilling')],
      cron_decide_gate: ['dags', M(true, false, 'deciding an approval gate')],
    };
    return [name, m[name]!];
  }),
);

const ran: { name: string; args: unknown }[] = [];

function tool(name: string, extra: Partial<ToolDef> = {}): ToolDef {
  const [toolset, mutation] = KIND[name] ?? ['observe', false];
  return {
    name,
    title: `Title of ${name}`,
    description: `Describes ${name}.`,
    toolset,
    mutation,
    input: z.strictObject({}),
    output: z.object({ ok: z.boolean() }),
    async run(args) {
      ran.push({ name, args });
      return toolOk(`${name} ran`, { ok: true });
    },
    ...extra,
  };
}

/** A tool with every argument kind the registry must check. */
const listJobs = tool('cron_list_jobs', {
  input: z.strictObject({
    filter: z.string().optional().describe('case-insensitive name substring'),
    state: z.enum(['running', 'disabled', 'scheduled']).optional(),
    offset: z.number().int().optional(),
    limit: z.number().int().optional(),
  }),
  output: z.object({ limit: z.number() }),
  async run(args, ctx) {
    return toolOk('listed', { limit: ctx.rows(args.limit as number | undefined) });
  },
});
const getJob = tool('cron_get_job', {
  input: z.strictObject({ name: z.string() }),
  async run(args) {
    return args.name === 'ghost' ? toolError("job not found: 'ghost'") : toolOk('job', { ok: true });
  },
});
const runJob = tool('cron_run_job', {
  input: z.strictObject({ name: z.string(), confirm: z.boolean().optional(), token: z.string().optional() }),
  async run(args) {
    const refused = confirmRefusal('running', args.confirm);
    if (refused) return refused;
    ran.push({ name: 'cron_run_job', args });
    return toolOk(`started job '${args.name}'`, { started: args.name });
  },
});
const broken = tool('cron_get_version', {
  async run() {
    throw new Error('disk on fire');
  },
});
const cluster = tool('cron_get_cluster', {
  output: z.union([
    z.object({ enabled: z.literal(false), peers: z.array(z.string()) }),
    z.object({ enabled: z.literal(true) }),
  ]),
});
const special: Record<string, ToolDef> = {
  cron_get_cluster: cluster,
  cron_list_jobs: listJobs,
  cron_get_job: getJob,
  cron_run_job: runJob,
  cron_get_version: broken,
};
const EXTRAS = [tool('cron_job_slots'), tool('cron_get_incident')];
// Deliberately shuffled: the catalogue order comes from inCatalogueOrder.
const ALL = inCatalogueOrder([...EXTRAS, ...[...CATALOGUE].reverse().map((n) => special[n] ?? tool(n))]);

const deps = {} as ApiDeps;
const logs: LogRecord[] = [];
const counted: string[] = [];

function registry(section: McpSection) {
  setSink((r) => logs.push(r));
  return new ToolRegistry(ALL, resolveMcpSettings({ enabled: true, ...section }), deps, {
    log: new Logger('cronstable'),
    count: (tool, outcome) => counted.push(`${tool}:${outcome}`),
  });
}
const caller = { remoteAddress: '127.0.0.1', userAgent: 'test-agent/1' };

afterEach(() => {
  setSink(null);
  logs.length = 0;
  counted.length = 0;
  ran.length = 0;
});

describe('visibility (spec 07 §4.1)', () => {
  const all = ['observe', 'act', 'dags', 'state'] as Toolset[];
  it.each([
    ['default', {}, 18],
    ['readOnly false, observe', { readOnly: false }, 18],
    ['readOnly true, all four', { toolsets: all }, 24],
    ['readOnly false, observe + act', { readOnly: false, toolsets: ['observe', 'act'] as Toolset[] }, 22],
    ['readOnly false, observe + dags', { readOnly: false, toolsets: ['observe', 'dags'] as Toolset[] }, 26],
    ['readOnly false, all four', { readOnly: false, toolsets: all }, 31],
    ['dags only, read-only', { toolsets: ['dags'] as Toolset[] }, 5],
  ] as [string, McpSection & object, number][])('%s -> %i catalogue tools (plus ours)', (_, section, n) => {
    const names = registry(section).tools.map((t) => t.name);
    const reference = names.filter((x) => (CATALOGUE as readonly string[]).includes(x));
    expect(reference).toHaveLength(n);
    // Catalogue order, then the tools beyond the reference (both observe) after the 31.
    expect(reference).toEqual(CATALOGUE.filter((x) => reference.includes(x)));
    const sets = section.toolsets ?? ['observe'];
    if (sets.includes('observe')) expect(names.slice(-2)).toEqual(['cron_job_slots', 'cron_get_incident']);
  });

  it('lists the default 18 from cron_get_status to cron_why_no_run, all read-only hints (vector 1)', () => {
    const tools = registry({}).tools.filter((t) => (CATALOGUE as readonly string[]).includes(t.name));
    expect(tools[0]!.name).toBe('cron_get_status');
    expect(tools.at(-1)!.name).toBe('cron_why_no_run');
    for (const t of tools) {
      expect(Object.keys(t)).toEqual([
        'name',
        'title',
        'description',
        'inputSchema',
        'outputSchema',
        'annotations',
      ]);
      expect(t.annotations).toEqual({
        title: t.title,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
    }
  });

  it('annotates mutating tools with their destructive/idempotent kinds', () => {
    const tools = registry({ readOnly: false, toolsets: ['act', 'dags'] }).tools;
    const hints = Object.fromEntries(
      tools
        .filter((t) => !t.annotations.readOnlyHint)
        .map((t) => [t.name, [t.annotations.destructiveHint, t.annotations.idempotentHint]]),
    );
    expect(hints).toEqual({
      cron_run_job: [false, false],
      cron_cancel_job: [true, true],
      cron_pause_job: [false, true],
      cron_resume_job: [false, true],
      cron_trigger_dag: [false, false],
      cron_backfill_dag: [true, false],
      cron_decide_gate: [true, false],
    });
  });
});

describe('advertised schemas', () => {
  it('derives inputSchema from the zod input: required only when non-empty, no $schema', () => {
    const reg = registry({ readOnly: false, toolsets: ['observe', 'act'] });
    const byName = Object.fromEntries(reg.tools.map((t) => [t.name, t]));
    expect(byName.cron_get_cluster!.inputSchema).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
    expect(byName.cron_list_jobs!.inputSchema).toEqual({
      type: 'object',
      properties: {
        filter: { type: 'string', description: 'case-insensitive name substring' },
        state: { type: 'string', enum: ['running', 'disabled', 'scheduled'] },
        offset: { type: 'integer' },
        limit: { type: 'integer' },
      },
      additionalProperties: false,
    });
    expect(byName.cron_run_job!.inputSchema.required).toEqual(['name']);
  });

  it('derives an outputSchema (JSON Schema 2020-12 without the $schema key) for every tool', () => {
    for (const t of registry({ readOnly: false, toolsets: ['observe', 'act', 'dags', 'state'] }).tools) {
      expect(t.outputSchema.type, t.name).toBe('object');
      expect(t.outputSchema.$schema).toBeUndefined();
    }
    const byName = Object.fromEntries(registry({}).tools.map((t) => [t.name, t]));
    // A union of object shapes is still advertised as an object (MCP requires it).
    expect(byName.cron_get_cluster!.outputSchema.type).toBe('object');
    expect(byName.cron_get_cluster!.outputSchema.anyOf).toHaveLength(2);
    expect(byName.cron_list_jobs!.outputSchema).toEqual({
      type: 'object',
      properties: { limit: { type: 'number' } },
      required: ['limit'],
      additionalProperties: false,
    });
  });
});

describe('tools/call', () => {
  it('treats unknown and hidden tools as -32602 unknown tool (vectors 6, 9)', async () => {
    const reg = registry({ toolsets: ['observe', 'act'] });
    await expect(reg.call('cron_nope', {}, caller)).rejects.toMatchObject({
      code: -32602,
      message: 'unknown tool: cron_nope',
    });
    await expect(reg.call('cron_run_job', { name: 'hello', confirm: true }, caller)).rejects.toMatchObject({
      code: -32602,
      message: 'unknown tool: cron_run_job',
    });
    expect(ran).toEqual([]);
  });

  it('refuses non-object arguments (absent = {})', async () => {
    const reg = registry({});
    for (const bad of [null, [], 'x', 3])
      await expect(reg.call('cron_get_status', bad, caller)).rejects.toMatchObject({
        code: -32602,
        message: "'arguments' must be an object",
      });
    expect(await reg.call('cron_get_status', undefined, caller)).toEqual({
      content: [{ type: 'text', text: 'cron_get_status ran' }],
      structuredContent: { ok: true },
    });
  });

  it('names a missing or empty required string, also for a number (vector 19)', async () => {
    const reg = registry({});
    for (const args of [{}, { name: '' }, { name: 5 }])
      expect(await reg.call('cron_get_job', args, caller)).toEqual({
        content: [{ type: 'text', text: "missing or empty required string argument: 'name'" }],
        isError: true,
      });
    const ghost = await reg.call('cron_get_job', { name: 'ghost' }, caller);
    expect(ghost.isError).toBe(true);
    expect(ghost.content[0]!.text).toContain('not found');
    expect(ghost.structuredContent).toBeUndefined();
  });

  it('validates types, enums and unknown keys against the schema, naming the argument', async () => {
    const reg = registry({});
    const text = async (args: Record<string, unknown>) => {
      const r = await reg.call('cron_list_jobs', args, caller);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      return r.content[0]!.text;
    };
    expect(await text({ limit: true })).toMatch(
      /^invalid argument 'limit': expected number, received boolean/,
    );
    expect(await text({ limit: '5' })).toMatch(/^invalid argument 'limit'/);
    expect(await text({ limit: 2.7 })).toMatch(/^invalid argument 'limit'/);
    expect(await text({ state: 'sleeping' })).toMatch(/^invalid argument 'state'/);
    expect(await text({ filter: 3 })).toMatch(/^invalid argument 'filter'/);
    expect(await text({ colour: 'red', other: 1 })).toBe("unknown argument(s): 'colour', 'other'");
  });

  it('clamps row counts to [1, maxRows], never an error', async () => {
    const reg = registry({ maxRows: 7 });
    const limit = async (l?: number) =>
      (await reg.call('cron_list_jobs', l === undefined ? {} : { limit: l }, caller)).structuredContent
        ?.limit;
    expect(await limit()).toBe(7);
    expect(await limit(100)).toBe(7);
    expect(await limit(0)).toBe(1);
    expect(await limit(-5)).toBe(1);
    expect(await limit(3)).toBe(3);
    expect(rowClamp(200)(undefined)).toBe(200);
  });

  it('gates mutating tools on confirm: JSON true, then audits and counts every call (vector 5)', async () => {
    const reg = registry({ readOnly: false, toolsets: ['observe', 'act'] });
    for (const confirm of [undefined, 'true', 1, false]) {
      const args = confirm === undefined ? { name: 'hello' } : { name: 'hello', confirm };
      const r = await reg.call('cron_run_job', args, caller);
      expect(r.isError, String(confirm)).toBe(true);
      expect(r.content[0]!.text).toBe('running changes state; call again with confirm=true to proceed');
    }
    expect(ran).toEqual([]);
    const ok = await reg.call('cron_run_job', { name: 'hello', confirm: true, token: 'hunter2' }, caller);
    expect(ok.structuredContent).toEqual({ started: 'hello' });
    expect(ran).toHaveLength(1);
    const audit = logs
      .filter((r) => r.message.startsWith('mcp audit: '))
      .map((r) => JSON.parse(r.message.slice(11)));
    expect(audit).toHaveLength(5);
    expect(audit[0]).toEqual({
      tool: 'cron_run_job',
      arguments: { name: 'hello' },
      outcome: 'refused',
      remoteAddress: '127.0.0.1',
      userAgent: 'test-agent/1',
    });
    expect(audit[4]).toEqual({
      tool: 'cron_run_job',
      arguments: { name: 'hello', confirm: true, token: '[redacted]' },
      outcome: 'ok',
      remoteAddress: '127.0.0.1',
      userAgent: 'test-agent/1',
    });
    expect(counted).toEqual([...Array(4).fill('cron_run_job:refused'), 'cron_run_job:ok']);
    // Read-only calls are counted but not audited.
    await reg.call('cron_get_status', {}, caller);
    await reg.call('cron_get_job', {}, caller);
    expect(counted.slice(-2)).toEqual(['cron_get_status:ok', 'cron_get_job:error']);
    expect(logs.filter((r) => r.message.startsWith('mcp audit: '))).toHaveLength(5);
  });

  it('turns an unexpected exception into -32603 internal error, detail only in the log', async () => {
    const reg = registry({});
    const err = await reg.call('cron_get_version', {}, caller).catch((e) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({ code: -32603, message: 'internal error' });
    expect(logs.map((r) => r.message).join('\n')).toContain('disk on fire');
    expect(counted).toEqual(['cron_get_version:internal']);
  });
});

describe('initialize capabilities', () => {
  const engine = (section: McpSection) => {
    setSink((r) => logs.push(r));
    const e = new McpEngine(
      ALL,
      resolveMcpSettings({ enabled: true, ...section }),
      { ctx: { version: '1.2.3' } } as ApiDeps,
      {
        log: new Logger('cronstable'),
      },
    );
    return e.initializeResult({}).capabilities;
  };
  it('advertises resources and prompts only when enabled and something is visible', () => {
    const all = {
      tools: { listChanged: false },
      resources: { listChanged: false },
      prompts: { listChanged: false },
    };
    expect(engine({})).toEqual(all);
    expect(engine({ resources: false, prompts: false })).toEqual({ tools: { listChanged: false } });
    expect(engine({ toolsets: ['state'] })).toEqual({
      tools: { listChanged: false },
      resources: { listChanged: false },
    });
    expect(engine({ toolsets: ['act'], readOnly: false })).toEqual({ tools: { listChanged: false } });
    expect(engine({ toolsets: ['dags'] })).toEqual(all);
  });
});
