// Issue 33 items 17-20: hostile MCP requests on a real daemon, over HTTP and through the stdio
// bridge, with the daemon's log captured: over-deep arguments and ids (spec 07 §2.6, §7), the
// audit line's size cap, and a client that drops mid-body.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AUDIT_ARGUMENTS_BYTES } from '../../src/mcp/audit.ts';
import { type Json, offMinuteRuns, readWriteMcp, suiteMcpDaemon } from '../helpers/mcp.ts';
import { runBridge } from '../helpers/mcp-bridge.ts';
import { until } from '../helpers/until.ts';

/** `{"a":{"a":…}}` nested `depth` deep, as JSON text (built without recursion). */
const deepJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const callText = (id: number | string, args: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"cron_run_job","arguments":${args}}}`;

describe('hostile MCP requests', () => {
  const d = suiteMcpDaemon({
    mcp: readWriteMcp(['observe', 'act'], 'maxBodyBytes: 4000000'),
  });
  const lines = () => d.daemon.logs().split('\n');
  const newLines = (from: number) => lines().slice(from);
  const audits = (ls: string[]) =>
    ls
      .filter((l) => l.includes('mcp audit: '))
      .map((l) => JSON.parse(l.slice(l.indexOf('mcp audit: ') + 11)) as Json);
  const noErrorNorStack = (ls: string[]) => {
    expect(ls.filter((l) => /\bERROR\b/.test(l))).toEqual([]);
    expect(ls.filter((l) => /^\s+at /.test(l))).toEqual([]);
  };

  it('answers internal error to an argument nested 10,000 deep, logs the detail and audits the call (item 17)', async () => {
    const mark = lines().length - 1;
    const r = await d.post(callText(7, `{"name":"hello","confirm":true,"extra":${deepJson(10_000)}}`));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'internal error' } });
    const seen = await until('the error and audit lines', 5000, async () => {
      const ls = newLines(mark);
      return audits(ls).length > 0 && ls.some((l) => l.includes('ERROR')) ? ls : null;
    });
    expect(seen.filter((l) => l.includes('ERROR'))).toEqual([
      expect.stringContaining('mcp: tool cron_run_job failed: arguments nest deeper than 64 levels'),
    ]);
    expect(seen.filter((l) => /^\s+at /.test(l))).toEqual([]);
    const [audit] = audits(seen);
    expect(audit).toMatchObject({ tool: 'cron_run_job', outcome: 'internal' });
    expect(audit.arguments).toMatchObject({ name: 'hello', confirm: true });
    // Nothing ran.
    const runs = (await (await fetch(`${d.base}/jobs/hello/runs`)).json()) as {
      runs: { started_at: string | null }[];
    };
    expect(offMinuteRuns(runs.runs)).toEqual([]);
  });

  it('answers the same through the stdio bridge (item 17)', async () => {
    const mark = lines().length - 1;
    const r = await runBridge(
      ['--url', d.base],
      [callText(8, `{"name":"hello","extra":${deepJson(10_000)}}`)],
    );
    expect(r.frames).toEqual([{ jsonrpc: '2.0', id: 8, error: { code: -32603, message: 'internal error' } }]);
    await until('the audit line', 5000, async () => (audits(newLines(mark)).length === 1 ? true : null));
  });

  it('refuses a request id nested 10,000 deep with -32600, never HTTP 500 (item 18)', async () => {
    const mark = lines().length - 1;
    const r = await d.post(`{"jsonrpc":"2.0","id":${deepJson(10_000)},"method":"ping"}`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'invalid JSON-RPC 2.0 message' },
    });
    const arrayId = await d.post(
      `{"jsonrpc":"2.0","id":${'['.repeat(10_000)}${']'.repeat(10_000)},"method":"ping"}`,
    );
    expect(arrayId.status).toBe(200);
    expect(arrayId.json.error.code).toBe(-32600);
    // A moderately nested id is still echoed verbatim.
    const ok = await d.post(`{"jsonrpc":"2.0","id":${deepJson(10)},"method":"ping"}`);
    expect(ok.json).toEqual({ jsonrpc: '2.0', id: JSON.parse(deepJson(10)), result: {} });
    noErrorNorStack(newLines(mark));
  });

  it('caps what an audit line carries (item 19)', async () => {
    const mark = lines().length - 1;
    // Words, not one opaque run (which the audit would redact as a token-like value).
    const huge = 'hello world '.repeat(83_334);
    // No confirm: the confirm rule refuses it.
    const r = await d.post(callText(9, JSON.stringify({ name: huge })));
    expect(r.status).toBe(200);
    expect(r.json.result.isError).toBe(true);
    const line = await until(
      'the audit line',
      5000,
      async () => newLines(mark).find((l) => l.includes('mcp audit: ')) ?? null,
    );
    expect(Buffer.byteLength(line)).toBeLessThan(AUDIT_ARGUMENTS_BYTES + 400);
    const [audit] = audits([line]);
    expect(audit.outcome).toBe('refused');
    const full = JSON.stringify({ name: huge });
    expect(audit.arguments).toBe(`${full.slice(0, AUDIT_ARGUMENTS_BYTES)}…[truncated: ${full.length} bytes]`);
  });

  it('logs one INFO line, no ERROR and no stack, for a client that drops mid-body (item 20)', async () => {
    const mark = lines().length - 1;
    const url = new URL(d.endpoint);
    await new Promise<void>((resolve, reject) => {
      const sock = connect(Number(url.port), url.hostname, () => {
        sock.write(
          'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
            'Content-Length: 5000\r\n\r\n{"jsonrpc":"2.0","id":1,',
          () => setTimeout(() => sock.destroy(), 100),
        );
      });
      sock.on('close', () => resolve());
      sock.on('error', reject);
    });
    const seen = await until('the dropped-client line', 5000, async () => {
      const ls = newLines(mark);
      return ls.some((l) => l.includes('went away')) ? ls : null;
    });
    // The daemon still answers, and logged the drop once, at INFO.
    expect((await d.rpc('ping')).result).toEqual({});
    const after = newLines(mark);
    expect(after.filter((l) => l.includes('went away'))).toEqual([expect.stringContaining('INFO')]);
    noErrorNorStack(seen);
    noErrorNorStack(after);
  });
});
