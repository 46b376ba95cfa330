// The real tool catalogue against spec 07 §4.2: every reference tool present once, in order, with
// its toolset and kind; ours after the 31 (spec 10 §1.6 adds two); the visibility counts of §4.1 over the real tools.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApiDeps } from '../../src/api/deps.ts';
import type { McpSection } from '../../src/config/file-schema.ts';
import { resolveMcpSettings } from '../../src/config/mcp.ts';
import { ToolRegistry } from '../../src/mcp/registry.ts';
import type { Toolset } from '../../src/mcp/tool.ts';
import { ALL_TOOLS, CATALOGUE } from '../../src/mcp/tools/index.ts';
import { Logger } from '../../src/util/log.ts';

/** §4.2: set, and for mutating tools [destructive, idempotent]. */
const SPEC: Record<string, [Toolset, false | [boolean, boolean]]> = {
  cron_list_dags: ['dags', false],
  cron_list_dag_runs: ['dags', false],
  cron_get_dag_run: ['dags', false],
  cron_get_dag_xcom: ['dags', false],
  cron_tail_dag_task_logs: ['dags', false],
  cron_inspect_state: ['state', false],
  cron_run_job: ['act', [false, false]],
  cron_cancel_job: ['act', [true, true]],
  // Spec 10 §1.6: right after cron_cancel_job, act, destructive false, idempotent true.
  cron_pause_job: ['act', [false, true]],
  cron_resume_job: ['act', [false, true]],
  cron_trigger_dag: ['dags', [false, false]],
  cron_backfill_dag: ['dags', [true, false]],
  cron_decide_gate: ['dags', [true, false]],
};
const kindOf = (name: string) => SPEC[name] ?? ['observe', false];

const registry = (section: McpSection) =>
  new ToolRegistry(ALL_TOOLS, resolveMcpSettings({ enabled: true, ...section }), {} as ApiDeps, {
    log: new Logger('cronstable'),
  });

describe('the tool catalogue', () => {
  it('holds the 31 reference tools once each, in catalogue order, ours after them', () => {
    const names = ALL_TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.slice(0, 31)).toEqual([...CATALOGUE]);
    for (const extra of names.slice(31)) expect(extra).toMatch(/^cron_/);
  });

  it('gives every reference tool its spec toolset and kind', () => {
    for (const t of ALL_TOOLS.filter((x) => (CATALOGUE as readonly string[]).includes(x.name))) {
      const [set, kind] = kindOf(t.name);
      expect(t.toolset, t.name).toBe(set);
      expect(t.mutation === false ? false : [t.mutation.destructive, t.mutation.idempotent], t.name).toEqual(
        kind,
      );
    }
  });

  it('never requires confirm or dry_run, and tells mutating tools to pass confirm=true', () => {
    for (const t of registry({ readOnly: false, toolsets: ['observe', 'act', 'dags', 'state'] }).tools) {
      const required = (t.inputSchema.required ?? []) as string[];
      expect(required, t.name).not.toContain('confirm');
      expect(required, t.name).not.toContain('dry_run');
      expect(t.description.length, t.name).toBeGreaterThan(0);
      expect(t.outputSchema.type, t.name).toBe('object');
      if (!t.annotations.readOnlyHint) expect(t.description, t.name).toContain('confirm=true');
    }
  });

  it('validates every advertised input schema as an object schema', () => {
    for (const t of ALL_TOOLS) expect(t.input).toBeInstanceOf(z.ZodObject);
  });
});

describe('visibility over the real tools (spec 07 §4.1, vectors 1 and 2)', () => {
  const all: Toolset[] = ['observe', 'act', 'dags', 'state'];
  it.each([
    ['default', {}, 18],
    ['readOnly false, observe', { readOnly: false }, 18],
    ['readOnly true, all four', { toolsets: all }, 24],
    ['readOnly false, observe + act', { readOnly: false, toolsets: ['observe', 'act'] }, 22],
    ['readOnly false, observe + dags', { readOnly: false, toolsets: ['observe', 'dags'] }, 26],
    ['readOnly false, all four', { readOnly: false, toolsets: all }, 31],
    ['dags only, read-only', { toolsets: ['dags'] }, 5],
  ] as [string, McpSection & object, number][])('%s -> %i reference tools', (_, section, n) => {
    const names = registry(section).tools.map((t) => t.name);
    const reference = names.filter((x) => (CATALOGUE as readonly string[]).includes(x));
    expect(reference).toHaveLength(n);
    expect(names.slice(0, n)).toEqual(reference);
  });

  it('starts the default listing at cron_get_status and ends the reference part at cron_why_no_run', () => {
    const names = registry({}).tools.map((t) => t.name);
    expect(names[0]).toBe('cron_get_status');
    expect(names[17]).toBe('cron_why_no_run');
  });
});
