// The MCP conformance suite at its latest release and the MCP Inspector CLI (1.x) against a real
// daemon (issue 34 item 2). Both need Node 22+, so they run in the Node lanes (scripts/node-lanes.mjs
// installs them in tools/node-lanes and points CRONSTABLE_LANE_TOOLS there); the main suite on
// Node 20 runs the conformance suite's last Node 20 release (mcp-conformance.test.ts) and skips this.
//
// Scenarios that apply to a server without the optional features: initialize, ping, the three
// lists and DNS-rebinding protection. Those that do not: logging-set-level, completion-complete,
// resources-subscribe/unsubscribe, tools-call-with-logging/-progress/-sampling/-elicitation and the
// elicitation and SSE scenarios test features cronstable does not offer (logging, completions,
// subscriptions, sampling, elicitation, server-initiated streams: spec 07 §2); tools-call-simple-text,
// -image, -audio, -embedded-resource, -mixed-content, -error, json-schema-2020-12, resources-read-*,
// resources-templates-read and prompts-get-* call the suite's own fixture tools, resources and prompts
// (test_simple_text, test://static-text, ...), which a real server does not have.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNode } from '../helpers/daemon-run.ts';
import { ROOT_DIR, suiteMcpDaemon } from '../helpers/mcp.ts';

const TOOLS = process.env.CRONSTABLE_LANE_TOOLS;
const major = Number(process.versions.node.split('.')[0]);
const BUNDLE = join(ROOT_DIR, 'dist', 'cronstable.mjs');

/** The JSON document a CLI printed after its banner lines. */
function jsonOf(out: string): unknown {
  return JSON.parse(out.slice(out.indexOf('{')));
}

describe.skipIf(!TOOLS || major < 22)(
  'the latest MCP conformance suite and the MCP Inspector CLI (Node lanes)',
  () => {
    const conformance = join(TOOLS ?? '', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
    const inspector = join(TOOLS ?? '', '@modelcontextprotocol', 'inspector', 'cli', 'build', 'cli.js');
    const d = suiteMcpDaemon({
      // The DNS-rebinding scenario posts with the server's own origin and expects it accepted.
      mcp: ['enabled: true', 'allowedOrigins:', '  - http://127.0.0.1:{PORT}', '  - http://localhost:{PORT}'],
    });

    it('runs the latest conformance release', async () => {
      const { out } = await runNode([conformance, '--version']);
      expect(out.trim()).toBe('0.1.16');
    });

    it.each([
      'server-initialize',
      'ping',
      'tools-list',
      'resources-list',
      'prompts-list',
      'dns-rebinding-protection',
    ])('conformance %s passes over HTTP', async (scenario) => {
      const { code, out } = await runNode([
        conformance,
        'server',
        '--url',
        d.endpoint,
        '--scenario',
        scenario,
      ]);
      expect(out).toMatch(/Passed: (\d+)\/\1, 0 failed/);
      expect(code, out).toBe(0);
    });

    it('the Inspector CLI lists and calls tools over HTTP', async () => {
      const list = await runNode([
        inspector,
        '--cli',
        d.endpoint,
        '--transport',
        'http',
        '--method',
        'tools/list',
      ]);
      expect(list.code, list.out).toBe(0);
      const names = (jsonOf(list.out) as { tools: { name: string }[] }).tools.map((t) => t.name);
      expect(names).toContain('cron_list_jobs');
      const call = await runNode([
        inspector,
        '--cli',
        d.endpoint,
        '--transport',
        'http',
        '--method',
        'tools/call',
        '--tool-name',
        'cron_get_version',
      ]);
      expect(call.code, call.out).toBe(0);
      expect(
        (jsonOf(call.out) as { structuredContent: { jobs: number } }).structuredContent.jobs,
      ).toBeGreaterThan(0);
    });

    it('the Inspector CLI reaches the same tools through `cronstable mcp` (stdio bridge)', async () => {
      const args = ['--cli', '--method', 'tools/call', '--tool-name', 'cron_list_jobs'];
      const bridge = [process.execPath, BUNDLE, 'mcp', '--url', d.base];
      const call = await runNode([inspector, ...args, ...bridge]);
      expect(call.code, call.out).toBe(0);
      const listed = jsonOf(call.out) as { isError?: boolean; content: { type: string; text: string }[] };
      expect(listed.isError ?? false).toBe(false);
      expect(listed.content[0]!.type).toBe('text');
      const resources = await runNode([inspector, '--cli', '--method', 'resources/list', ...bridge]);
      expect(resources.code, resources.out).toBe(0);
      expect(jsonOf(resources.out)).toHaveProperty('resources');
    });
  },
);
