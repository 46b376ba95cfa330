// The `mcp:` block (spec 07 §1): keys, defaults, the block's own checks (with file:line:col), the
// cross-section rules against `web` across files, and the fail-closed rule (§1.3, vector 24).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { isLocalListen, resolveMcpSettings } from '../../src/config/mcp.ts';
import { configMessageOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

function load(yaml: string, extra: Record<string, string> = {}) {
  const dir = writeTree({ 'conf.yaml': yaml, ...extra });
  return loadConfig(join(dir, 'conf.yaml'), { cwd: dir });
}

const web = (listen: string, more = '') => `web:\n  listen:\n    - ${listen}\n${more}`;
/** A block list under `mcp:` (flow style is not allowed in configs). */
const list = (key: string, items: string[]) => `  ${key}:\n${items.map((i) => `    - ${i}\n`).join('')}`;
const LOCAL = web('http://127.0.0.1:8080');
const TOKEN = '  authToken:\n    value: s3cret\n';

describe('mcp settings', () => {
  it('applies the defaults of spec 07 §1.1', () => {
    expect(resolveMcpSettings(null)).toEqual({
      enabled: false,
      readOnly: true,
      toolsets: ['observe'],
      allowedOrigins: [],
      allowUnauthenticated: false,
      resources: true,
      prompts: true,
      instructions: null,
      maxRows: 200,
      maxBodyBytes: 1_048_576,
    });
    expect(resolveMcpSettings({}).enabled).toBe(false);
  });

  it('reads every key and drops duplicate toolsets keeping the first occurrence', () => {
    const cfg = load(
      `${LOCAL}mcp:\n  enabled: true\n  readOnly: false\n` +
        list('toolsets', ['dags', 'observe', 'dags', 'act', 'observe']) +
        list('allowedOrigins', ['http://ok.example']) +
        '  resources: false\n  prompts: false\n' +
        '  instructions: Be careful.\n  maxRows: 5\n  maxBodyBytes: 2000000\n',
    );
    expect(resolveMcpSettings(cfg.mcp)).toEqual({
      enabled: true,
      readOnly: false,
      toolsets: ['dags', 'observe', 'act'],
      allowedOrigins: ['http://ok.example'],
      allowUnauthenticated: false,
      resources: false,
      prompts: false,
      instructions: 'Be careful.',
      maxRows: 5,
      maxBodyBytes: 2_000_000,
    });
  });

  it('reads an empty instructions value as the built-in text', () => {
    const cfg = load(`${LOCAL}mcp:\n  enabled: true\n  instructions:\n`);
    expect(resolveMcpSettings(cfg.mcp).instructions).toBeNull();
  });
});

describe('mcp config errors', () => {
  it('refuses unknown keys and toolset names at their position', () => {
    const unknown = configMessageOf(load, `${LOCAL}mcp:\n  enabled: true\n  readonly: true\n`);
    expect(unknown).toMatch(/conf\.yaml:6:\d+: /);
    expect(unknown).toContain('readonly');
    const toolset = configMessageOf(
      load,
      `${LOCAL}mcp:\n  enabled: true\n${list('toolsets', ['observe', 'admin'])}`,
    );
    expect(toolset).toMatch(/conf\.yaml:8:\d+: /);
    expect(toolset).toContain('admin');
  });

  it('checks maxRows and maxBodyBytes even when the block is disabled (vector 24)', () => {
    const rows = configMessageOf(load, `${LOCAL}mcp:\n  enabled: true\n  maxRows: 0\n`);
    expect(rows).toMatch(/conf\.yaml:6:3: mcp\.maxRows: mcp\.maxRows must be >= 1/);
    expect(configMessageOf(load, `${LOCAL}mcp:\n  maxBodyBytes: 0\n`)).toContain(
      'mcp.maxBodyBytes must be >= 1',
    );
    expect(configMessageOf(load, `${LOCAL}mcp:\n  maxRows: nope\n`)).toMatch(/conf\.yaml:5:\d+: /);
  });

  it('needs a web section, and a listen address when enabled', () => {
    expect(configMessageOf(load, 'mcp:\n  enabled: true\n')).toContain(
      "an 'mcp' section requires a 'web' section",
    );
    expect(configMessageOf(load, 'web:\n  listen:\nmcp:\n  enabled: true\n')).toContain(
      'web.listen is empty: MCP needs a web listen address',
    );
    // Disabled: an empty listen is fine (the web server is simply off).
    expect(load('web:\n  listen:\nmcp:\n  enabled: false\n').mcp).toEqual({ enabled: false });
  });

  it('fails closed: enabled without a token on a routable address (vector 24)', () => {
    const msg = configMessageOf(load, `${web('http://0.0.0.0:8080')}mcp:\n  enabled: true\n`);
    expect(msg).toMatch(/conf\.yaml:5:3: mcp\.enabled: /);
    expect(msg).toContain('http://0.0.0.0:8080');
    expect(msg).toContain('web.authToken');
    expect(msg).toContain('restrict web.listen to loopback/unix-socket addresses');
    // Spec 10 §3.2: the full text, naming the four fixes.
    expect(msg).toContain(
      'mcp.enabled is set but no web.authToken/authTokens is set, and the web API listens on non-loopback address(es) http://0.0.0.0:8080: /mcp would be served without authentication (with no token the web app installs no auth middleware at all). Set web.authToken or a web.authTokens entry, restrict web.listen to loopback/unix-socket addresses, set web.tls.clientCa so the listener authenticates callers by certificate, or set mcp.allowUnauthenticated: true when the endpoint is protected by other means (an mTLS-terminating proxy, a network policy).',
    );
    expect(msg).toContain('mcp.allowUnauthenticated: true');
    expect(
      load(`${web('http://0.0.0.0:8080')}mcp:\n  enabled: true\n  allowUnauthenticated: true\n`).mcp,
    ).toEqual({
      enabled: true,
      allowUnauthenticated: true,
    });
    // A token block (even one resolved at start-up) satisfies the rule.
    expect(load(`${web('http://0.0.0.0:8080', TOKEN)}mcp:\n  enabled: true\n`).mcp?.enabled).toBe(true);
    // Disabled: no rule.
    expect(load(`${web('http://0.0.0.0:8080')}mcp:\n  enabled: false\n`).mcp?.enabled).toBe(false);
    // Local listeners only: no token needed.
    expect(
      load(
        `web:\n  listen:\n    - localhost:8080\n    - unix:///tmp/x.sock\n    - http://[::1]:1\nmcp:\n  enabled: true\n`,
      ).mcp?.enabled,
    ).toBe(true);
  });

  it('names only the routable addresses', () => {
    const msg = configMessageOf(
      load,
      'web:\n  listen:\n    - http://127.0.0.1:1\n    - 192.168.1.4:8080\n    - http://box.example:9\nmcp:\n  enabled: true\n',
    );
    expect(msg).toContain('192.168.1.4:8080, http://box.example:9');
    expect(msg).not.toContain('127.0.0.1:1,');
  });

  it('runs the cross-section rules on the merged config (mcp and web in different files)', () => {
    const msg = configMessageOf(load, 'include:\n  - web.yaml\nmcp:\n  enabled: true\n', {
      'web.yaml': web('http://0.0.0.0:8080'),
    });
    expect(msg).toContain('mcp.allowUnauthenticated');
    expect(load('include:\n  - web.yaml\nmcp:\n  enabled: true\n', { 'web.yaml': LOCAL }).mcp?.enabled).toBe(
      true,
    );
  });

  it('warns (only) about act under readOnly', () => {
    const cfg = load(`${LOCAL}mcp:\n  enabled: true\n${list('toolsets', ['observe', 'act'])}`);
    expect(cfg.warnings.map((w) => w.message).join('\n')).toContain(
      "toolset 'act' has no effect while readOnly is true",
    );
    const rw = load(
      `${LOCAL}mcp:\n  enabled: true\n  readOnly: false\n${list('toolsets', ['observe', 'act'])}`,
    );
    expect(rw.warnings.map((w) => w.message).join('\n')).not.toContain("toolset 'act'");
  });
});

describe('local listen addresses (spec 07 §1.3)', () => {
  it.each([
    ['unix:///run/cronstable.sock', true],
    ['http://localhost:8080', true],
    ['LOCALHOST:8080', true],
    ['http://127.0.0.1:8080', true],
    ['127.9.8.7:1', true],
    ['http://[::1]:8080', true],
    ['https://127.0.0.1:8443', true],
    ['http://0.0.0.0:8080', false],
    ['http://[::]:8080', false],
    ['10.0.0.5:8080', false],
    ['http://box.example:8080', false],
    ['http://127.0.0.1.example:1', false],
  ])('%s -> %s', (addr, local) => {
    expect(isLocalListen(addr)).toBe(local);
  });
});
