// The README's "Use it from an AI assistant" section against the code: its toolset table names every
// tool of each toolset, marks exactly the mutating ones, and its default count is what a default
// `mcp:` block lists; the bridge flags it shows exist.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MCP_USAGE } from '../../src/cli/mcp/args.ts';
import { ALL_TOOLS } from '../../src/mcp/tools/index.ts';

const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
const start = README.indexOf('## Use it from an AI assistant');
const section = README.slice(start, README.indexOf('\n## ', start + 1));

/** `| \`observe\` | \`cron_a\`, \`cron_b\` (M) |` rows -> toolset -> [name, mutating]. */
function table(): Map<string, [string, boolean][]> {
  const rows = new Map<string, [string, boolean][]>();
  for (const m of section.matchAll(/^\| `(observe|act|dags|state)` \| (.+) \|$/gm)) {
    const tools = [...m[2]!.matchAll(/`(cron_\w+)`( \(M[;)])?/g)].map(
      (t) => [t[1]!, t[2] !== undefined] as [string, boolean],
    );
    rows.set(m[1]!, tools);
  }
  return rows;
}

describe('README: Use it from an AI assistant', () => {
  it('lists every tool under its toolset, with the mutating ones marked', () => {
    expect(start).toBeGreaterThan(0);
    const rows = table();
    expect([...rows.keys()].sort()).toEqual(['act', 'dags', 'observe', 'state']);
    for (const [set, listed] of rows) {
      const code = ALL_TOOLS.filter((t) => t.toolset === set).map((t) => [t.name, Boolean(t.mutation)]);
      expect(listed.sort(), set).toEqual(code.sort());
    }
  });

  it('says how many tools a default block shows', () => {
    const observeReadOnly = ALL_TOOLS.filter((t) => t.toolset === 'observe' && !t.mutation).length;
    expect(section).toContain(`the ${observeReadOnly} read-only observe tools`);
    expect(section).toContain(`${observeReadOnly} tool(s) at http://127.0.0.1:8080/mcp`);
  });

  it('shows only flags the bridge has', () => {
    const shown = new Set([...section.matchAll(/--[a-z][a-z-]+/g)].map((m) => m[0]));
    for (const flag of shown) expect(MCP_USAGE, flag).toContain(flag);
  });
});
