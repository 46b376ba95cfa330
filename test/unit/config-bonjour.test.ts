// Spec 10 §6.6: the `web.bonjour` key, its two shapes and its one load rule, on real config files.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { bonjourSettings } from '../../src/config/web-bonjour.ts';
import { configMessageOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

function load(yaml: string) {
  const dir = writeTree({ 'conf.yaml': yaml });
  return loadConfig(join(dir, 'conf.yaml'), { cwd: dir, euid: 0 });
}

const web = (listen: string[], bonjour: string) =>
  `web:\n  listen:\n${listen.map((l) => `    - ${l}\n`).join('')}  bonjour:${bonjour}\n`;
const TCP = ['http://0.0.0.0:8080'];

describe('web.bonjour', () => {
  it('takes true, or a mapping with enabled (default true) and name', () => {
    expect(bonjourSettings(load(web(TCP, ' true')).web!)).toEqual({ name: null });
    expect(bonjourSettings(load(web(TCP, ' false')).web!)).toBeNull();
    expect(bonjourSettings(load(web(TCP, '\n    name: Build Box')).web!)).toEqual({ name: 'Build Box' });
    expect(bonjourSettings(load(web(TCP, '\n    enabled: false\n    name: x')).web!)).toBeNull();
    expect(bonjourSettings(load(web(TCP, '\n    enabled: true')).web!)).toEqual({ name: null });
    expect(bonjourSettings(load(`web:\n  listen:\n    - ${TCP[0]}\n`).web!)).toBeNull();
  });

  it('rejects wrong types with file:line:col and the key', () => {
    expect(configMessageOf(load, web(TCP, ' 5'))).toMatch(/conf\.yaml:4:\d+: web\.bonjour: expected /);
    expect(configMessageOf(load, web(TCP, '\n    - true'))).toMatch(
      /conf\.yaml:5:\d+: web\.bonjour: expected /,
    );
    expect(configMessageOf(load, web(TCP, '\n    enabled: maybe'))).toMatch(
      /conf\.yaml:5:\d+: web\.bonjour\.enabled: /,
    );
    expect(configMessageOf(load, web(TCP, '\n    name:\n      - a'))).toMatch(
      /conf\.yaml:6:\d+: web\.bonjour\.name: /,
    );
    expect(configMessageOf(load, web(TCP, '\n    port: 5353'))).toMatch(/conf\.yaml:5:\d+: .*port/);
  });

  it('needs a TCP listener when every web.listen entry is a unix socket', () => {
    const msg = configMessageOf(load, web(['unix:///run/a.sock', 'unix:///run/b.sock'], ' true'));
    expect(msg).toMatch(/conf\.yaml:5:3: web\.bonjour: /);
    expect(msg).toContain(
      'web.bonjour needs a TCP web listener to advertise, but every web.listen entry is a unix socket',
    );
    // One TCP entry among them is enough, and a disabled bonjour asks for nothing.
    expect(load(web(['unix:///run/a.sock', 'http://127.0.0.1:8080'], ' true')).web?.bonjour).toBe(true);
    expect(load(web(['unix:///run/a.sock'], '\n    enabled: false')).web?.bonjour).toEqual({
      enabled: false,
    });
  });
});
