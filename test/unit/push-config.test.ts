// The `push:` section and `report.push` (spec 10 §6.1): defaults, every error text with its
// file:line:col, the cross-section rules (state, web, report blocks), and pairLinkBase (§6.5).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { pairLinkBase, redactUserinfo, resolvePushReport } from '../../src/config/push.ts';
import { configMessageOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

function load(files: Record<string, string>, entry = 'conf.yaml') {
  const dir = writeTree(files);
  return loadConfig(join(dir, entry), { cwd: dir });
}

const LOCAL_WEB = 'web:\n  listen:\n    - http://127.0.0.1:8080\n';
const push = (relay: string, more = '  devicesFile: /tmp/devices.json\n') =>
  `push:\n  relay:\n${relay}${more}`;
const URL_OK = '    url: https://relay.example/push\n';
const job = (report: string) =>
  `jobs:\n  - name: nightly\n    command: "false"\n    schedule: "0 3 * * *"\n    onFailure:\n      report:\n        push:\n${report}`;

describe('push section', () => {
  it('applies the defaults and reads every key', () => {
    const cfg = load({ 'conf.yaml': LOCAL_WEB + push(URL_OK) });
    expect(cfg.push).toEqual({
      relayUrl: 'https://relay.example/push',
      relayTimeout: 10,
      devicesFile: '/tmp/devices.json',
      allowUnauthenticated: false,
    });
    const tuned = load({
      'conf.yaml':
        LOCAL_WEB +
        push(`${URL_OK}    timeout: 2.5\n`, '  devicesFile: /tmp/d.json\n  allowUnauthenticated: true\n'),
    });
    expect(tuned.push).toMatchObject({ relayTimeout: 2.5, allowUnauthenticated: true });
    expect(load({ 'conf.yaml': LOCAL_WEB }).push).toBeNull();
  });

  it('rejects a relay url that is not http(s) with a host, userinfo redacted, at its position', () => {
    const msg = configMessageOf(load, { 'conf.yaml': push('    url: ftp://user:secret@relay.example/x\n') });
    expect(msg).toContain(
      "conf.yaml:3:5: push.relay.url: push.relay.url must be an http(s) URL, got 'ftp://***@relay.example/x'",
    );
    expect(msg).not.toContain('secret');
    expect(configMessageOf(load, { 'conf.yaml': push('    url: not a url\n') })).toContain(
      "push.relay.url must be an http(s) URL, got 'not a url'",
    );
  });

  it('rejects a timeout <= 0 and a value of the wrong type', () => {
    expect(configMessageOf(load, { 'conf.yaml': push(`${URL_OK}    timeout: 0\n`) })).toContain(
      'conf.yaml:4:5: push.relay.timeout: push.relay.timeout must be > 0 seconds',
    );
    expect(configMessageOf(load, { 'conf.yaml': push(`${URL_OK}    timeout: soon\n`) })).toMatch(
      /conf\.yaml:4:\d+: push\.relay\.timeout/,
    );
    expect(configMessageOf(load, { 'conf.yaml': push(URL_OK, '  allowUnauthenticated: maybe\n') })).toMatch(
      /push\.allowUnauthenticated/,
    );
    expect(configMessageOf(load, { 'conf.yaml': push(URL_OK, '  colour: red\n') })).toContain(
      "unexpected key not in schema 'colour'",
    );
  });

  it('needs a store or a devicesFile', () => {
    expect(configMessageOf(load, { 'conf.yaml': LOCAL_WEB + push(URL_OK, '') })).toContain(
      'conf.yaml:4:1: push: push: needs durable storage for its paired-device registry: configure a `state:` section (shared store, cluster-visible pairings) or set push.devicesFile (single node)',
    );
    const withState = load({ 'conf.yaml': `${LOCAL_WEB}state:\n  path: ./state\n${push(URL_OK, '')}` });
    expect(withState.push?.devicesFile).toBeNull();
  });

  it('refuses an open routable listener unless allowUnauthenticated, a token or mTLS covers it', () => {
    const open = 'web:\n  listen:\n    - http://0.0.0.0:8080\n    - http://127.0.0.1:9000\n';
    const msg = configMessageOf(load, { 'conf.yaml': open + push(URL_OK) });
    expect(msg).toContain(
      'push: is configured but no web.authToken/authTokens is set, and the web API listens on non-loopback address(es) http://0.0.0.0:8080:',
    );
    for (const fix of [
      'web.authToken',
      'loopback/unix-socket',
      'web.tls.clientCa',
      'push.allowUnauthenticated: true',
    ])
      expect(msg).toContain(fix);
    expect(
      load({ 'conf.yaml': open + push(URL_OK, '  devicesFile: /tmp/d.json\n  allowUnauthenticated: true\n') })
        .push,
    ).not.toBeNull();
    expect(
      load({ 'conf.yaml': `${open}  authToken:\n    value: s3cret\n${push(URL_OK)}` }).push,
    ).not.toBeNull();
  });

  it('allows one push section across files', () => {
    const one = `${LOCAL_WEB}include:\n  - more.yaml\n${push(URL_OK)}`;
    expect(configMessageOf(load, { 'conf.yaml': one, 'more.yaml': push(URL_OK) })).toContain(
      'multiple push configs',
    );
    const msg = configMessageOf(load, { 'a.yaml': LOCAL_WEB + push(URL_OK), 'b.yaml': push(URL_OK) }, '.');
    expect(msg).toContain("Multiple 'push' configurations found");
  });
});

describe('report.push', () => {
  it('has the spec defaults and accepts every holder', () => {
    expect(resolvePushReport(undefined)).toEqual({
      enabled: false,
      priority: 'time-sensitive',
      includeLogTail: true,
    });
    const cfg = load({
      'conf.yaml':
        LOCAL_WEB +
        push(URL_OK) +
        job('          enabled: true\n          priority: passive\n          includeLogTail: false\n') +
        '    onPermanentFailure:\n      report:\n        push:\n          enabled: true\n' +
        '    onSuccess:\n      report:\n        push:\n          enabled: false\n' +
        '    sla:\n      lateAfterSeconds: 60\n    onLate:\n      report:\n        push:\n          enabled: true\n' +
        'notify:\n  report:\n    push:\n      enabled: true\n',
    });
    expect(cfg.jobs[0]!.onFailure.report.push).toEqual({
      enabled: true,
      priority: 'passive',
      includeLogTail: false,
    });
    expect(cfg.notify?.report.push).toEqual({ enabled: true });
  });

  it('rejects a bad priority and a non-boolean', () => {
    expect(
      configMessageOf(load, { 'conf.yaml': LOCAL_WEB + push(URL_OK) + job('          priority: urgent\n') }),
    ).toMatch(/conf\.yaml:\d+:\d+: .*priority/);
    expect(
      configMessageOf(load, {
        'conf.yaml': LOCAL_WEB + push(URL_OK) + job('          enabled: sometimes\n'),
      }),
    ).toMatch(/enabled/);
  });

  it('needs a push section when enabled, naming every user', () => {
    const msg = configMessageOf(load, {
      'conf.yaml': `${LOCAL_WEB + job('          enabled: true\n')}notify:\n  report:\n    push:\n      enabled: true\n`,
    });
    expect(msg).toMatch(
      /conf\.yaml:\d+:\d+: report\.push\.enabled is set \(job nightly, notify\) but no `push:` section is configured; add one \(push\.relay\.url plus a `state:` section or push\.devicesFile\) or disable the push reporter/,
    );
    // Disabled: no section needed.
    expect(load({ 'conf.yaml': LOCAL_WEB + job('          enabled: false\n') }).jobs).toHaveLength(1);
  });
});

describe('pairing link helpers', () => {
  it('takes the origin of the relay url without userinfo (vector 50)', () => {
    expect(pairLinkBase('https://u:p@r.example/x')).toBe('https://r.example/pair');
    expect(pairLinkBase('http://127.0.0.1:8443/relay/v1')).toBe('http://127.0.0.1:8443/pair');
    expect(redactUserinfo('https://u:p@r.example/x')).toBe('https://***@r.example/x');
    expect(redactUserinfo('https://r.example/x')).toBe('https://r.example/x');
  });
});
