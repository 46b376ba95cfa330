import { execFileSync } from 'node:child_process';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type LoadOptions, loadConfig } from '../../src/config/load.ts';
import { mergeConfig } from '../../src/config/merge.ts';
import { MAX_CONFIG_FILE_BYTES } from '../../src/config/read.ts';
import { configErrorOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

const NOW = Date.parse('2026-01-07T12:00:00Z');

function loadDir(files: Record<string, string>, entry = '', opts: LoadOptions = {}) {
  const dir = writeTree(files);
  return { dir, cfg: loadConfig(join(dir, entry), { nowMs: NOW, cwd: dir, ...opts }) };
}

const jobYaml = (name: string, extra = '') =>
  `  - name: ${name}\n    command: echo ${name}\n    schedule: "* * * * *"\n${extra}`;

describe('file kinds (spec 01 §1.2)', () => {
  it('reads crontab by name, YAML by extension, and sniffs the rest', () => {
    const files = {
      crontab: '* * * * * echo a\n',
      'x.cron': '* * * * * echo b\n',
      'y.CRONTAB': '* * * * * echo c\n',
      'sniff-assign': 'FOO=bar\n* * * * * echo d\n',
      'sniff-nick': '# c\n\n@daily echo e\n',
      'sniff-line': '*/5 * * * * echo f\n',
      plain: 'jobs:\n  - name: g\n    command: x\n    schedule: "* * * * *"\n',
      'only-five': '* * * * *\n',
    };
    const dir = writeTree(files);
    const names = (f: string) => loadConfig(join(dir, f), { nowMs: NOW }).jobs.map((j) => j.name);
    expect(names('crontab')).toEqual(['crontab:1']);
    expect(names('x.cron')).toEqual(['x.cron:1']);
    expect(names('y.CRONTAB')).toEqual(['y.CRONTAB:1']);
    expect(names('sniff-assign')).toEqual(['sniff-assign:2']);
    expect(names('sniff-nick')).toEqual(['sniff-nick:3']);
    expect(names('sniff-line')).toEqual(['sniff-line:1']);
    expect(names('plain')).toEqual(['g']);
    // 5 fields and no command: not a crontab, so YAML, where `*` starts an alias.
    expect(configErrorOf(() => loadConfig(join(dir, 'only-five'))).message).toContain(
      `${join(dir, 'only-five')}:1:1: `,
    );
  });

  it('never sniffs .yaml files', () => {
    const { cfg } = loadDir({ 'a.yaml': '' }, 'a.yaml');
    expect(cfg.jobs).toEqual([]);
    const dir = writeTree({ 'b.yml': '* * * * * echo x\n' });
    expect(configErrorOf(() => loadConfig(join(dir, 'b.yml'))).message).toContain('b.yml');
  });

  it('reports a missing file with the OS error text', () => {
    const e = configErrorOf(() => loadConfig('/nonexistent/cronstable.yaml'));
    expect(e.message).toBe("[Errno 2] No such file or directory: '/nonexistent/cronstable.yaml'");
  });
});

describe('directory mode (spec 01 §1.3)', () => {
  it('loads entries in code-point order, skipping _x, .x and other extensions (YAML suffix in any case, spec 09 §7.5)', () => {
    const { cfg } = loadDir({
      'b.yaml': `jobs:\n${jobYaml('from-b')}`,
      'A.yml': `jobs:\n${jobYaml('from-A')}`,
      '_frag.yaml': `jobs:\n${jobYaml('skipped-underscore')}`,
      '.hidden.yaml': `jobs:\n${jobYaml('skipped-dot')}`,
      'c.YAML': `jobs:\n${jobYaml('upper-case')}`,
      'README.md': 'not config',
      'x.txt': '* * * * * echo ignored\n',
      'legacy.crontab': '* * * * * echo legacy\n',
    });
    expect(cfg.jobs.map((j) => j.name)).toEqual(['from-A', 'from-b', 'upper-case', 'legacy.crontab:1']);
  });

  it('treats an empty directory as a valid empty config', () => {
    expect(loadDir({ 'README.md': '' }).cfg.jobs).toEqual([]);
  });

  it('rejects a singleton section defined by two files, naming both', () => {
    const dir = writeTree({
      'a.yaml': 'web:\n  listen:\n    - http://127.0.0.1:1\n',
      'b.yaml': 'web:\n  listen:\n    - http://127.0.0.1:2\n',
    });
    const e = configErrorOf(() => loadConfig(dir));
    expect(e.message).toContain(
      `Multiple 'web' configurations found: first in ${join(dir, 'a.yaml')}, now in ${join(dir, 'b.yaml')}`,
    );
  });

  it('collects the errors of every bad file into one report', () => {
    const dir = writeTree({
      'a.yaml': 'jobs: x\n',
      'b.yaml': 'nope: 1\n',
      'c.yaml': `jobs:\n${jobYaml('fine')}`,
    });
    const e = configErrorOf(() => loadConfig(dir));
    expect(e.issues).toHaveLength(2);
    expect(e.message).toContain('a.yaml:1:7');
    expect(e.message).toContain("b.yaml:1:1: nope: unexpected key not in schema 'nope'");
    expect(e.message).toContain('\n---\n');
  });

  it("applies a file's defaults only to that file's jobs", () => {
    const { cfg } = loadDir({
      'a.yaml': `defaults:\n  shell: /bin/bash\njobs:\n${jobYaml('a')}`,
      'b.yaml': `jobs:\n${jobYaml('b')}`,
    });
    expect(cfg.jobs.map((j) => j.shell)).toEqual(['/bin/bash', '/bin/sh']);
  });
});

describe('include (spec 01 §1.4)', () => {
  it('resolves relative to the including file and puts included jobs first', () => {
    const { cfg } = loadDir(
      {
        'conf/main.yaml': `include:\n  - sub/inc.yaml\njobs:\n${jobYaml('inline')}`,
        'conf/sub/inc.yaml': `include:\n  - deeper.crontab\njobs:\n${jobYaml('included')}`,
        'conf/sub/deeper.crontab': '0 0 * * * echo deep\n',
      },
      'conf/main.yaml',
    );
    expect(cfg.jobs.map((j) => j.name)).toEqual(['deeper.crontab:1', 'included', 'inline']);
  });

  it('gives inline jobs the included defaults, and included jobs only their own', () => {
    const { cfg } = loadDir(
      {
        'main.yaml': `include:\n  - _d.yaml\ndefaults:\n  captureStdout: true\njobs:\n${jobYaml('inline')}`,
        '_d.yaml': `defaults:\n  shell: /bin/bash\n  environment:\n    - key: A\n      value: '1'\njobs:\n${jobYaml('inc')}`,
      },
      'main.yaml',
    );
    const [inc, inline] = cfg.jobs;
    expect(inc!.shell).toBe('/bin/bash');
    expect(inc!.captureStdout).toBe(false);
    expect(inline!.shell).toBe('/bin/bash');
    expect(inline!.captureStdout).toBe(true);
    expect(inline!.environment).toEqual([{ key: 'A', value: '1' }]);
  });

  it('reproduces the reset quirk: a later include resets every key to its own effective value', () => {
    const { cfg } = loadDir(
      {
        'main.yaml': `include:\n  - _a.yaml\n  - _b.yaml\njobs:\n${jobYaml('j')}`,
        '_a.yaml': 'defaults:\n  shell: /bin/bash\n  stateAllowedScopes:\n    - x\n',
        '_b.yaml': 'defaults:\n  captureStdout: true\n  stateAllowedScopes:\n    - y\n',
      },
      'main.yaml',
    );
    expect(cfg.jobs[0]!.shell).toBe('/bin/sh');
    expect(cfg.jobs[0]!.captureStdout).toBe(true);
    expect(cfg.jobs[0]!.stateAllowedScopes).toEqual(['x', 'y']);
  });

  it('adopts a singleton section from an include, and rejects a second one', () => {
    const ok = loadDir(
      { 'm.yaml': 'include:\n  - _w.yaml\n', '_w.yaml': 'web:\n  listen:\n    - http://127.0.0.1:9\n' },
      'm.yaml',
    );
    expect(ok.cfg.web?.listen).toEqual(['http://127.0.0.1:9']);
    const dir = writeTree({
      'm.yaml': 'include:\n  - _w.yaml\nweb:\n  listen:\n    - http://127.0.0.1:8\n',
      '_w.yaml': 'web:\n  listen:\n    - http://127.0.0.1:9\n',
    });
    expect(configErrorOf(() => loadConfig(join(dir, 'm.yaml'))).message).toContain('multiple web configs');
  });

  it('detects include cycles, including a diamond from one top-level file', () => {
    const cyc = writeTree({ 'a.yaml': 'include:\n  - b.yaml\n', 'b.yaml': 'include:\n  - a.yaml\n' });
    expect(configErrorOf(() => loadConfig(join(cyc, 'a.yaml'))).message).toContain(
      'include cycle detected at a.yaml',
    );
    const twice = writeTree({ 'a.yaml': 'include:\n  - x.yaml\n  - x.yaml\n', 'x.yaml': '' });
    expect(configErrorOf(() => loadConfig(join(twice, 'a.yaml'))).message).toContain(
      'include cycle detected at x.yaml',
    );
    const self = writeTree({ 'a.yaml': 'include:\n  - ./a.yaml\n' });
    expect(configErrorOf(() => loadConfig(join(self, 'a.yaml'))).message).toContain(
      'include cycle detected at ./a.yaml',
    );
  });

  it('lets two directory files include the same fragment', () => {
    const { cfg } = loadDir({
      'a.yaml': `include:\n  - _d.yaml\njobs:\n${jobYaml('a')}`,
      'b.yaml': `include:\n  - _d.yaml\njobs:\n${jobYaml('b')}`,
      '_d.yaml': 'defaults:\n  shell: /bin/dash\n',
    });
    expect(cfg.jobs.map((j) => j.shell)).toEqual(['/bin/dash', '/bin/dash']);
  });

  it('reports a missing include with the OS error', () => {
    const dir = writeTree({ 'a.yaml': 'include:\n  - missing.yaml\n' });
    expect(configErrorOf(() => loadConfig(join(dir, 'a.yaml'))).message).toContain(
      `[Errno 2] No such file or directory: '${join(dir, 'missing.yaml')}'`,
    );
  });
});

describe('defaults merge (spec 01 §1.5)', () => {
  it('merges environment by key, keeping the first position', () => {
    const base = {
      environment: [
        { key: 'A', value: '1' },
        { key: 'B', value: '2' },
      ],
    };
    const over = {
      environment: [
        { key: 'C', value: '3' },
        { key: 'A', value: '9' },
        { key: 'C', value: '4' },
      ],
    };
    expect(mergeConfig(base, over).environment).toEqual([
      { key: 'A', value: '9' },
      { key: 'B', value: '2' },
      { key: 'C', value: '4' },
    ]);
  });

  it('replaces whole secret entries by name, fingerprints wholesale, and concatenates other lists', () => {
    const merged = mergeConfig(
      {
        secrets: [{ name: 's', value: null, fromEnvVar: 'X' }],
        fingerprint: ['a', 'b'],
        stateAllowedScopes: ['x'],
      },
      { secrets: [{ name: 's', value: 'v' }], fingerprint: ['c'], stateAllowedScopes: ['x'] },
    );
    expect(merged.secrets).toEqual([{ name: 's', value: 'v' }]);
    expect(merged.fingerprint).toEqual(['c']);
    expect(merged.stateAllowedScopes).toEqual(['x', 'x']);
  });

  it('deep-merges maps, keeps a map under an empty value, and lets a bool replace a map', () => {
    const merged = mergeConfig(
      {
        onFailure: { retry: { maximumRetries: 3 }, report: { webhook: { headers: { A: '1', B: '2' } } } },
        monitorResources: { interval: 0.5 },
        statsd: null,
        failsWhen: { always: false },
      },
      {
        onFailure: { report: { webhook: { headers: { B: '3' } } } },
        monitorResources: true,
        statsd: { prefix: 'p' },
        failsWhen: null,
      },
    );
    expect(merged.onFailure.retry).toEqual({ maximumRetries: 3 });
    expect(merged.onFailure.report.webhook.headers).toEqual({ A: '1', B: '3' });
    expect(merged.monitorResources).toBe(true);
    expect(merged.statsd).toEqual({ prefix: 'p' });
    expect(merged.failsWhen).toEqual({ always: false });
    expect(mergeConfig({ m: true }, { m: { history: 0 } }).m).toEqual({ history: 0 });
  });

  it('keeps base keys in order, then keys only in the override', () => {
    expect(Object.keys(mergeConfig({ b: 1, a: 2 }, { c: 3, a: 4 }))).toEqual(['b', 'a', 'c']);
  });

  it('applies defaults to YAML jobs but never to crontab jobs', () => {
    const { cfg } = loadDir(
      {
        'm.yaml': `include:\n  - x.crontab\ndefaults:\n  captureStdout: true\njobs:\n${jobYaml('y')}`,
        'x.crontab': '* * * * * echo c\n',
      },
      'm.yaml',
    );
    expect(cfg.jobs.map((j) => [j.name, j.captureStdout])).toEqual([
      ['x.crontab:1', false],
      ['y', true],
    ]);
  });

  it('rejects name, command and schedule inside defaults', () => {
    const dir = writeTree({ 'a.yaml': 'defaults:\n  command: echo\n' });
    expect(configErrorOf(() => loadConfig(join(dir, 'a.yaml'))).message).toContain(
      "defaults.command: unexpected key not in schema 'command'",
    );
  });
});

describe('classic crontab lowering (spec 01 §4)', () => {
  const tab = [
    '# legacy jobs',
    'SHELL=/bin/sh',
    'PATH = "/usr/local/bin:/usr/bin:/bin"',
    'CRON_TZ=UTC',
    '*/7 * * * * echo "$(date -u +\\%H:\\%M) (\\% is escaped)"',
    '30 4 * * mon-fri /usr/bin/report --weekday',
    '@daily echo daily',
    '@midnight echo midnight',
    'MAILTO=ops@example.com',
    '@reboot echo boot \\ back',
  ].join('\n');

  it('names jobs <basename>:<line> and snapshots the variables above each entry', () => {
    const { cfg } = loadDir({ 'legacy.crontab': tab }, 'legacy.crontab');
    expect(cfg.jobs.map((j) => j.name)).toEqual([
      'legacy.crontab:5',
      'legacy.crontab:6',
      'legacy.crontab:7',
      'legacy.crontab:8',
      'legacy.crontab:10',
    ]);
    const first = cfg.jobs[0]!;
    expect(first.command).toBe('echo "$(date -u +%H:%M) (% is escaped)"');
    expect(first.environment).toEqual([
      { key: 'SHELL', value: '/bin/sh' },
      { key: 'PATH', value: '/usr/local/bin:/usr/bin:/bin' },
      { key: 'CRON_TZ', value: 'UTC' },
    ]);
    expect(first.shell).toBe('/bin/sh');
    expect(first.timezone).toBe('UTC');
    expect(first.captureStdout).toBe(false);
    expect(cfg.jobs[3]!.scheduleText).toBe('@daily');
    const boot = cfg.jobs[4]!;
    expect(boot.reboot).toBe(true);
    expect(boot.command).toBe('echo boot \\ back');
    expect(boot.environment.map((e) => e.key)).toContain('MAILTO');
  });

  it('rejects bad lines with path:line', () => {
    const cases: [string, string][] = [
      ['@often echo x', "bad.crontab:1:1: unknown schedule nickname '@often'; supported: @reboot"],
      ['* * * * echo', 'bad.crontab:1:1: not a valid crontab line: * * * * echo'],
      ['61 * * * * echo x', "bad.crontab:1:1: invalid schedule '61 * * * *': "],
      ['* * * * * echo 50%', "bad.crontab:1:1: unescaped '%' in command: echo 50%"],
      ['CRON_TZ=Mars/Olympus', "bad.crontab:1:1: CRON_TZ: unknown timezone 'Mars/Olympus'"],
      ['@daily', "bad.crontab:1:1: schedule '@daily' has no command"],
      ['@DAILY echo x', "unknown schedule nickname '@DAILY'"],
    ];
    for (const [line, message] of cases) {
      const dir = writeTree({ 'bad.crontab': `${line}\n` });
      const e = configErrorOf(() => loadConfig(join(dir, 'bad.crontab')));
      expect(e.message.replace(dir + '/', '')).toContain(message);
    }
  });
});

describe('blank lists and maps across files (issue 8)', () => {
  it('rejects a blank list inside an included file at that file', () => {
    const dir = writeTree({
      'a.yaml': `include:\n  - _frag.yaml\njobs:\n${jobYaml('a')}`,
      '_frag.yaml': 'defaults:\n  stateAllowedScopes:\n',
    });
    expect(configErrorOf(() => loadConfig(join(dir, 'a.yaml'))).message).toMatch(
      /_frag\.yaml:2:22: defaults\.stateAllowedScopes: expected a list of text, found an empty value/,
    );
  });

  it('rejects blank jobs in one directory file among valid ones, at its file:line:col', () => {
    const dir = writeTree({
      'a.yaml': `jobs:\n${jobYaml('fine')}`,
      'b.yaml': '# work in progress\njobs:\n# - name: later\n',
    });
    const e = configErrorOf(() => loadConfig(dir));
    expect(e.issues).toHaveLength(1);
    expect(e.message).toBe(
      `${join(dir, 'b.yaml')}:2:6: jobs: expected a list of mappings, found an empty value`,
    );
  });

  it('keeps a comment-only file a valid empty config: alone, in a directory and as an include', () => {
    expect(loadDir({ 'c.yaml': '# nothing yet\n\n   # still nothing\n' }, 'c.yaml').cfg.jobs).toEqual([]);
    const { cfg } = loadDir({
      'a.yaml': `include:\n  - _empty.yaml\njobs:\n${jobYaml('a')}`,
      '_empty.yaml': '# placeholder\n',
      'b.yaml': '# placeholder\n',
    });
    expect(cfg.jobs.map((j) => j.name)).toEqual(['a']);
  });
});

describe('reading never blocks or balloons (issue 14.3)', () => {
  const mkfifo = (path: string) => execFileSync('mkfifo', [path]);

  it('refuses a FIFO include at the include directive, without waiting for a writer', () => {
    const dir = writeTree({
      'a.yaml': `include:\n  - _ok.yaml\n  - pipe.yaml\njobs:\n${jobYaml('a')}`,
      '_ok.yaml': '',
    });
    mkfifo(join(dir, 'pipe.yaml'));
    const e = configErrorOf(() => loadConfig(join(dir, 'a.yaml')));
    expect(e.message).toBe(
      `${join(dir, 'a.yaml')}:3:5: include[1]: '${join(dir, 'pipe.yaml')}' is a FIFO, not a regular file`,
    );
  });

  it('refuses /dev/zero as an include and as an env_file, each at its own key', () => {
    const dir = writeTree({
      'a.yaml': `include:\n  - /dev/zero\n`,
      'b.yaml': `jobs:\n${jobYaml('b', '    env_file: /dev/zero\n')}`,
    });
    expect(configErrorOf(() => loadConfig(join(dir, 'a.yaml'))).message).toBe(
      `${join(dir, 'a.yaml')}:2:5: include[0]: '/dev/zero' is a character device, not a regular file`,
    );
    expect(configErrorOf(() => loadConfig(join(dir, 'b.yaml'), { cwd: dir })).message).toBe(
      `${join(dir, 'b.yaml')}:5:5: jobs[0].env_file: Could not load env_file: '/dev/zero' is a character device, not a regular file`,
    );
  });

  it('refuses a FIFO env_file and a FIFO directory entry', () => {
    const dir = writeTree({ 'conf/a.yaml': `jobs:\n${jobYaml('a', '    env_file: vars.env\n')}` });
    mkfifo(join(dir, 'vars.env'));
    mkfifo(join(dir, 'conf', 'b.yaml'));
    const e = configErrorOf(() => loadConfig(join(dir, 'conf'), { cwd: dir }));
    expect(e.issues.map((i) => i.message)).toEqual([
      `Could not load env_file: '${join(dir, 'vars.env')}' is a FIFO, not a regular file`,
      `'${join(dir, 'conf', 'b.yaml')}' is a FIFO, not a regular file`,
    ]);
    expect(e.issues[0]).toMatchObject({ line: 5, col: 5, path: 'jobs[0].env_file' });
    expect(e.issues[1]).toMatchObject({ file: join(dir, 'conf', 'b.yaml') });
  });

  it('refuses a file over the 16 MiB cap, top-level or included', () => {
    expect(MAX_CONFIG_FILE_BYTES).toBe(16 * 1024 * 1024);
    const dir = writeTree({ 'a.yaml': 'include:\n  - big.yaml\n', 'big.yaml': '' });
    // Sparse: no 16 MiB written to disk, yet the size is over the cap.
    truncateSync(join(dir, 'big.yaml'), MAX_CONFIG_FILE_BYTES + 1);
    expect(configErrorOf(() => loadConfig(join(dir, 'big.yaml'))).message).toBe(
      `${join(dir, 'big.yaml')}: '${join(dir, 'big.yaml')}' is larger than 16 MiB, the limit for one config file`,
    );
    expect(configErrorOf(() => loadConfig(join(dir, 'a.yaml'))).message).toMatch(
      /a\.yaml:2:5: include\[0\]: '.*big\.yaml' is larger than 16 MiB/,
    );
  });

  it('reports deep nesting as a located error, not a stack overflow', () => {
    const dir = writeTree({
      'seq.yaml': `jobs:\n  ${'- '.repeat(20_000)}x\n`,
      'map.yaml': `logging:\n  version: 1\n  root:\n${Array.from({ length: 200 }, (_, i) => `${' '.repeat(4 + i)}k${i}:`).join('\n')} v\n`,
    });
    const seq = configErrorOf(() => loadConfig(join(dir, 'seq.yaml')));
    expect(seq.message).toBe(
      `${join(dir, 'seq.yaml')}:2:129: nesting too deep: more than 64 levels of mappings and lists`,
    );
    const map = configErrorOf(() => loadConfig(join(dir, 'map.yaml')));
    expect(map.message).toMatch(/map\.yaml:66:\d+: nesting too deep/);
  });

  it('reports invalid UTF-8 at its line and column', () => {
    const dir = writeTree({});
    writeFileSync(
      join(dir, 'a.yaml'),
      Buffer.concat([Buffer.from('jobs:\n  - name: caf'), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]),
    );
    expect(configErrorOf(() => loadConfig(join(dir, 'a.yaml'))).message).toBe(
      `${join(dir, 'a.yaml')}:2:14: invalid UTF-8 (byte 0xc3) in '${join(dir, 'a.yaml')}'`,
    );
  });

  it('names the include directive of a missing include', () => {
    const dir = writeTree({
      'a.yaml': '# fragments\ninclude:\n  - _here.yaml\n  - _missing.yaml\n',
      '_here.yaml': '',
    });
    expect(configErrorOf(() => loadConfig(join(dir, 'a.yaml'))).message).toBe(
      `${join(dir, 'a.yaml')}:4:5: include[1]: [Errno 2] No such file or directory: '${join(dir, '_missing.yaml')}'`,
    );
  });
});
