// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned at 0.1.13: the
// last release that runs on Node 20; 0.1.14+ imports fs.globSync, Node 22+) against a real daemon,
// offline on loopback. Only the scenarios that test a server in general run here: the others need
// the suite's own fixture tools (test_simple_text, test_image_content, ...) or features cronstable
// does not offer (logging/setLevel, completion, subscriptions, sampling, elicitation, SSE streams).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNode } from '../helpers/daemon-run.ts';
import { ROOT_DIR, suiteMcpDaemon } from '../helpers/mcp.ts';

const CLI = join(ROOT_DIR, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

const conformance = (url: string, scenario: string) =>
  runNode([CLI, 'server', '--url', url, '--scenario', scenario]);

describe('MCP conformance suite', () => {
  const d = suiteMcpDaemon({
    // The suite's DNS-rebinding scenario posts with the server's own origin and expects it to be
    // accepted; cronstable accepts only listed origins (spec 07 §2.5), so list it.
    mcp: ['enabled: true', 'allowedOrigins:', '  - http://127.0.0.1:{PORT}', '  - http://localhost:{PORT}'],
  });

  it.each([
    'server-initialize',
    'ping',
    'tools-list',
    'resources-list',
    'prompts-list',
    'dns-rebinding-protection',
  ])('%s passes', async (scenario) => {
    const { code, out } = await conformance(d.endpoint, scenario);
    expect(out).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    expect(code, out).toBe(0);
  });
});
