// `state.jobApi.listen` over https and `state.jobApi.tls` (spec 10 §3.5, vector 43): the parse, the
// load errors in the spec's words, and the warning for an off-host plaintext endpoint.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJobApiListen } from '../../src/config/jobapi-listen.ts';
import { loadConfig } from '../../src/config/load.ts';
import { configMessageOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

function load(api: string) {
  const dir = writeTree({ 'conf.yaml': `state:\n  path: st\n  jobApi:\n${api}` });
  return loadConfig(join(dir, 'conf.yaml'), { cwd: dir, euid: 0, env: {} });
}
describe('spec 10 §3.5 state.jobApi over https', () => {
  it('parses https://, http:// and bare host:port, and knows a wildcard host', () => {
    expect(parseJobApiListen('https://127.0.0.1:9000')).toEqual({
      tls: true,
      host: '127.0.0.1',
      port: 9000,
      wildcard: false,
    });
    expect(parseJobApiListen('http://[::1]:1')).toMatchObject({ tls: false, host: '[::1]', port: 1 });
    expect(parseJobApiListen('localhost:0')).toMatchObject({
      tls: false,
      host: 'localhost',
      wildcard: false,
    });
    for (const w of ['https://0.0.0.0:9000', 'https://[::]:9000', 'https://:9000'])
      expect(parseJobApiListen(w)).toMatchObject({ wildcard: true });
    expect(parseJobApiListen('unix:///run/x.sock')).toBe(
      'state.jobApi.listen must be an http:// or https:// URL or a bare host:port (the job CLI reaches the endpoint over TCP only)',
    );
  });

  it('v43: a wildcard https host, and tls.ca on an http listen, are load errors with the spec texts', () => {
    expect(
      configMessageOf(
        load,
        '    listen: https://0.0.0.0:9000\n    allowNonLoopbackBind: true\n    tls:\n      cert: c.pem\n      key: k.pem\n',
      ),
    ).toContain(
      'state.jobApi.listen cannot bind a wildcard host over https:// : jobs dial the address they are given, and no certificate covers an unspecified address; name the interface explicitly, e.g. https://10.0.0.5:9000',
    );
    expect(
      configMessageOf(load, '    listen: http://127.0.0.1:9000\n    tls:\n      ca: ca.pem\n'),
    ).toContain(
      'state.jobApi.tls is configured but state.jobApi.listen is not an https:// URL, so the TLS material would be ignored and per-run bearer tokens sent in cleartext; use an https:// listen address or remove state.jobApi.tls',
    );
  });

  it('the other §3.5 texts: half a pair, https without a certificate, another scheme', () => {
    expect(
      configMessageOf(load, '    listen: https://127.0.0.1:9000\n    tls:\n      cert: c.pem\n'),
    ).toContain(
      'state.jobApi.tls.cert and state.jobApi.tls.key must be set together (a server certificate needs its private key); got cert=True, key=False',
    );
    expect(configMessageOf(load, '    listen: https://127.0.0.1:9000\n')).toContain(
      'state.jobApi.listen is https:// but state.jobApi.tls.cert and state.jobApi.tls.key are not set, so the endpoint has no certificate to serve',
    );
    expect(configMessageOf(load, '    listen: ftp://127.0.0.1:9000\n')).toContain(
      'state.jobApi.listen must be an http:// or https:// URL or a bare host:port',
    );
    const ok = load(
      '    listen: https://127.0.0.1:9000\n    tls:\n      cert: c.pem\n      key: k.pem\n      ca: ca.pem\n',
    );
    expect(ok.state?.jobApi?.tls).toEqual({ cert: 'c.pem', key: 'k.pem', ca: 'ca.pem' });
  });

  it('warns at every load about an off-host plaintext endpoint, never about loopback or https', () => {
    const off = load('    listen: http://10.0.0.5:9000\n    allowNonLoopbackBind: true\n');
    expect(off.warnings.map((w) => w.message)).toContain(
      "state.jobApi.listen binds '10.0.0.5' off-host without TLS, so per-run bearer tokens and staged job secrets cross the network in cleartext; set an https:// listen address with state.jobApi.tls, or terminate TLS in front of it",
    );
    const quiet = [
      load('    listen: http://127.0.0.1:9000\n    allowNonLoopbackBind: true\n'),
      load(
        '    listen: https://10.0.0.5:9000\n    allowNonLoopbackBind: true\n    tls:\n      cert: c.pem\n      key: k.pem\n',
      ),
    ];
    for (const cfg of quiet) expect(cfg.warnings.map((w) => w.message).join('\n')).not.toContain('off-host');
  });
});
