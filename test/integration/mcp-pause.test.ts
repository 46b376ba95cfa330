// The MCP pause tools (spec 10 §1.6, vectors 21 and 22) on a real daemon through the MCP SDK's own
// client over Streamable HTTP, with Setup T's `ci` token (scope `control` only): their place in
// tools/list and their annotations, the confirm rule first, the lenient `durationSeconds`, the
// argument checks in the spec's order, the REST refusals as isError, and `/jobs` showing the
// pause taken by `mcp` on the `mcp` channel.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/mcp/catalogue.ts';
import { readWriteMcp, suiteMcpDaemon } from '../helpers/mcp.ts';

const JOBS = [
  '  - name: tick',
  '    command: "echo hi"',
  '    schedule: "* * * * *"',
  '  - name: slow',
  '    command: "sleep 30"',
  '    schedule: "0 0 1 1 *"',
].join('\n');

type Result = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: unknown };

describe('MCP cron_pause_job / cron_resume_job (spec 10 §1.6)', () => {
  const d = suiteMcpDaemon({
    jobs: JOBS,
    token: 'admin',
    web: ['authTokens:', '  - label: ci', '    scopes:', '      - control', '    value: ctltok'],
    mcp: readWriteMcp(['observe', 'act', 'dags']),
  });

  async function ci(): Promise<Client> {
    const client = new Client({ name: 'cronstable-pause-test', version: '0' });
    const transport = new StreamableHTTPClientTransport(new URL(d.endpoint), {
      requestInit: { headers: { authorization: 'Bearer ctltok' } },
    });
    await client.connect(transport);
    return client;
  }
  const call = async (c: Client, name: string, args: Record<string, unknown>) =>
    (await c.callTool({ name, arguments: args })) as Result;
  const text = (r: Result) => r.content[0]!.text;

  it('v21: 30 catalogue tools for a control token; the pause pair right after cron_cancel_job', async () => {
    const c = await ci();
    try {
      const { tools } = await c.listTools();
      const names = tools.map((t) => t.name);
      expect(names.filter((n) => (CATALOGUE as readonly string[]).includes(n))).toHaveLength(30);
      const at = names.indexOf('cron_cancel_job');
      expect(names.slice(at, at + 3)).toEqual(['cron_cancel_job', 'cron_pause_job', 'cron_resume_job']);
      for (const [name, title] of [
        ['cron_pause_job', 'Pause job'],
        ['cron_resume_job', 'Resume job'],
      ] as const) {
        const t = tools.find((x) => x.name === name)!;
        expect(t.title).toBe(title);
        expect(t.annotations).toMatchObject({
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: true,
        });
        expect(t.description).toContain('confirm=true');
        expect(t.inputSchema.required).toEqual(['name']);
      }
    } finally {
      await c.close();
    }
  });

  it('v22: confirm first, then a lenient durationSeconds; /jobs shows the pause by mcp on the mcp channel', async () => {
    const c = await ci();
    try {
      const refused = await call(c, 'cron_pause_job', { name: 'tick' });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toBe('pausing changes state; call again with confirm=true to proceed');
      // The confirm rule comes before the job lookup and every argument check.
      expect(text(await call(c, 'cron_pause_job', { name: 'ghost', durationSeconds: true }))).toBe(
        'pausing changes state; call again with confirm=true to proceed',
      );
      expect(text(await call(c, 'cron_resume_job', { name: 'tick' }))).toBe(
        'resuming changes state; call again with confirm=true to proceed',
      );

      const before = Date.now();
      const ok = await call(c, 'cron_pause_job', { name: 'tick', confirm: true, durationSeconds: '120' });
      expect(ok.isError).toBeFalsy();
      const body = ok.structuredContent as { paused: string; until: string };
      expect(body.paused).toBe('tick');
      const until = Date.parse(body.until);
      expect(until - before).toBeGreaterThanOrEqual(119_000);
      expect(until - Date.now()).toBeLessThanOrEqual(120_000);
      expect(text(ok)).toBe(`paused job 'tick' until ${body.until}`);

      const row = (await (
        await fetch(`${d.base}/jobs/tick`, { headers: { authorization: 'Bearer ctltok' } })
      ).json()) as { paused: Record<string, string> };
      expect(row.paused).toMatchObject({ until: body.until, by: 'mcp', channel: 'mcp', note: '' });
      expect(d.daemon.logs()).toContain('Job tick paused until');
    } finally {
      await c.close();
    }
  });

  it('checks durationSeconds, note and the REST rules in the spec order, as isError', async () => {
    const c = await ci();
    try {
      const cases: [Record<string, unknown>, string][] = [
        [{ durationSeconds: true }, 'durationSeconds must be an integer'],
        [{ durationSeconds: 'soon' }, 'durationSeconds must be an integer'],
        [{ durationSeconds: 'soon', note: 5 }, 'durationSeconds must be an integer'],
        [{ note: 5 }, 'note must be a string'],
        [{ durationSeconds: 0 }, 'durationSeconds must be between 1 and 2592000'],
        [{ note: 'x'.repeat(501) }, 'note is longer than 500 characters'],
        [{ until: '2020-01-01T00:00:00Z' }, 'until is in the past'],
        [{ durationSeconds: 5, until: '2030-01-01T00:00:00Z' }, 'give durationSeconds or until, not both'],
      ];
      for (const [args, error] of cases) {
        const r = await call(c, 'cron_pause_job', { name: 'slow', confirm: true, ...args });
        expect([r.isError, text(r)], JSON.stringify(args)).toEqual([true, error]);
      }
      const ghost = await call(c, 'cron_pause_job', { name: 'ghost', confirm: true });
      expect([ghost.isError, text(ghost)]).toEqual([true, "job 'ghost' not found"]);
      // `until` is accepted too (the spec's Do better), with a note.
      const at = new Date(Date.now() + 3_600_000);
      const r = await call(c, 'cron_pause_job', {
        name: 'slow',
        confirm: true,
        until: at.toISOString(),
        note: 'maint',
      });
      expect(r.isError).toBeFalsy();
      expect(Date.parse((r.structuredContent as { until: string }).until)).toBe(at.getTime());
    } finally {
      await c.close();
    }
  });

  it('resume lifts the pause, by mcp; resuming a job that is not paused is no error', async () => {
    const c = await ci();
    try {
      const r = await call(c, 'cron_resume_job', { name: 'slow', confirm: true });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toEqual({ resumed: 'slow' });
      expect(text(r)).toBe("resumed job 'slow'");
      expect(d.daemon.logs()).toContain('Job slow resumed by mcp (mcp)');
      const again = await call(c, 'cron_resume_job', { name: 'slow', confirm: true });
      expect(again.isError).toBeFalsy();
      const ghost = await call(c, 'cron_resume_job', { name: 'ghost', confirm: true });
      expect([ghost.isError, text(ghost)]).toEqual([true, "job 'ghost' not found"]);
      const row = (await (
        await fetch(`${d.base}/jobs/slow`, { headers: { authorization: 'Bearer ctltok' } })
      ).json()) as { paused: unknown };
      expect(row.paused).toBeNull();
    } finally {
      await c.close();
    }
  });
});
