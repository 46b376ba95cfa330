import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type LoadOptions, loadConfig } from '../../src/config/load.ts';
import { configMessageOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

const NOW = Date.parse('2026-01-07T12:00:00Z');

function load(yaml: string, extraFiles: Record<string, string> = {}, opts: LoadOptions = {}) {
  const dir = writeTree({ 'conf.yaml': yaml, ...extraFiles });
  return loadConfig(join(dir, 'conf.yaml'), { nowMs: NOW, cwd: dir, euid: 0, ...opts });
}

const job = (extra = '', schedule = '"* * * * *"') =>
  `jobs:\n  - name: j\n    command: echo hi\n    schedule: ${schedule}\n${extra}`;
const STATE = 'state:\n  path: /tmp/cronstable-state\n';

describe('job schedule and time base', () => {
  it('parses string, object and nickname forms and keeps the normalised text', () => {
    const cfg = load(
      'jobs:\n  - name: a\n    command: x\n    schedule: "  */5   *  * * *  "\n' +
        '  - name: b\n    command: x\n    schedule:\n      minute: "0"\n      hour: "6"\n      dayOfWeek: mon-fri\n' +
        '  - name: c\n    command: x\n    schedule:\n      second: "*/5"\n' +
        '  - name: d\n    command: x\n    schedule:\n      minute: "0"\n      hour: "0"\n      dayOfMonth: "1"\n      month: "1"\n      year: 2026/2\n' +
        '  - name: e\n    command: x\n    schedule: "@daily"\n' +
        '  - name: f\n    command: x\n    schedule: "@reboot"\n',
    );
    expect(cfg.jobs.map((j) => j.scheduleText)).toEqual([
      '*/5 * * * *',
      '0 6 * * mon-fri',
      '*/5 * * * * * *',
      '0 0 1 1 * 2026/2',
      '@daily',
      '@reboot',
    ]);
    expect(cfg.jobs[2]!.cron?.hasSeconds).toBe(true);
    expect(cfg.jobs[5]!.cron).toBeNull();
    expect(cfg.jobs[5]!.reboot).toBe(true);
  });

  it('reports an invalid schedule with the rendered expression, at the schedule key', () => {
    const msg = configMessageOf(load, job('', '"61 * * * *"'));
    expect(msg).toMatch(/conf\.yaml:4:5: jobs\[0\]\.schedule: invalid schedule '61 \* \* \* \*': /);
    const obj = configMessageOf(
      load,
      'jobs:\n  - name: j\n    command: x\n    schedule:\n      hour: "25"\n',
    );
    expect(obj).toContain("invalid schedule '* 25 * * *'");
    expect(configMessageOf(load, job('', '"@midnight"'))).toContain("invalid schedule '@midnight'");
    expect(configMessageOf(load, job('', '"0 0 * * 5L"'))).toMatch(/invalid schedule '0 0 \* \* 5L': .*L5/);
  });

  it('validates timezone names exactly', () => {
    expect(load(job('    timezone: America/New_York\n')).jobs[0]!.frame).toEqual({
      kind: 'zone',
      zone: 'America/New_York',
    });
    expect(configMessageOf(load, job('    timezone: America/Gotham\n'))).toMatch(
      /jobs\[0\]\.timezone: unknown timezone: America\/Gotham/,
    );
    expect(configMessageOf(load, job('    timezone: america/new_york\n'))).toContain(
      'unknown timezone: america/new_york',
    );
    expect(load(job('    utc: false\n')).jobs[0]!.frame.kind).toBe('local');
  });

  it('logs schedule lints as warnings without failing the load', () => {
    const cfg = load(job('', '"*/7 * * * *"'));
    expect(
      cfg.warnings.some(
        (w) =>
          w.level === 'warning' && w.message.startsWith("job 'j': schedule '*/7 * * * *': [uneven-step]"),
      ),
    ).toBe(true);
    const dead = load(job('', '"0 0 1 1 * 2020"'));
    expect(dead.warnings.map((w) => w.message).join('\n')).toContain('[never-fires]');
  });
});

describe('job value rules (spec 01 §3)', () => {
  const cases: [string, string][] = [
    ['    saveLimit: -1\n', 'jobs[0].saveLimit: Job j: saveLimit must be >= 0'],
    ['    maxLineLength: 0\n', 'jobs[0].maxLineLength: Job j: maxLineLength must be > 0'],
    ['    killTimeout: -0.5\n', 'Job j: killTimeout must be >= 0'],
    [
      '    monitorResources:\n      interval: 0.05\n',
      'jobs[0].monitorResources.interval: Job j: monitorResources.interval must be >= 0.1 (seconds)',
    ],
    [
      '    monitorResources:\n      history: 2001\n',
      'Job j: monitorResources.history must be between 0 and 2000',
    ],
    ['    catchupJitterSeconds: -1\n', 'Job j: catchupJitterSeconds must be >= 0'],
    ['    startingDeadlineSeconds: 0\n', 'Job j: startingDeadlineSeconds must be > 0'],
    ['    executionTimeout: 0\n', 'Job j: executionTimeout must be > 0'],
    [
      '    onFailure:\n      retry:\n        maximumRetries: -2\n        initialDelay: 1\n        maximumDelay: 10\n        backoffMultiplier: 2\n',
      'jobs[0].onFailure.retry.maximumRetries: Job j: onFailure.retry.maximumRetries must be >= -1',
    ],
    [
      '    onFailure:\n      retry:\n        maximumRetries: 1\n        initialDelay: -1\n        maximumDelay: 0\n        backoffMultiplier: 0\n',
      'onFailure.retry.initialDelay must be >= 0',
    ],
    [
      '    concurrencyScope: cluster\n',
      'Job j: concurrencyScope: cluster has no effect with concurrencyPolicy: Allow',
    ],
    [
      '    streamPrefix: "[{job} {stream_name}] "\n',
      "Job j: streamPrefix '[{job} {stream_name}] ' has an unknown placeholder '{job}'",
    ],
    ['    streamPrefix: "oops }"\n', "unknown placeholder '}'"],
    ['    concurrencyPolicy: Sometimes\n', "expected one of 'Allow', 'Forbid', 'Replace', found 'Sometimes'"],
  ];
  for (const [extra, message] of cases) {
    it(`rejects ${extra.trim().split('\n').pop()}`, () => {
      expect(configMessageOf(load, `${STATE}${job(extra)}`)).toContain(message);
    });
  }

  it('reports every failing range of one job, pointing at the defaults key when inherited', () => {
    const msg = configMessageOf(load, `defaults:\n  saveLimit: -5\n${job('    maxLineLength: 0\n')}`);
    expect(msg).toMatch(/conf\.yaml:2:3: defaults\.saveLimit: Job j: saveLimit must be >= 0/);
    expect(msg).toMatch(/conf\.yaml:\d+:5: jobs\[0\]\.maxLineLength: Job j: maxLineLength must be > 0/);
  });

  it('accepts the two streamPrefix placeholders, doubled braces and an empty prefix', () => {
    const cfg = load(job('    streamPrefix: "[meridian:{job_name}/{stream_name}] {{x}} "\n'));
    expect(cfg.jobs[0]!.streamPrefix).toBe('[meridian:{job_name}/{stream_name}] {{x}} ');
    expect(load(job('    streamPrefix: ""\n')).jobs[0]!.streamPrefix).toBe('');
  });

  it('accepts -1 retries (forever) and the full key set', () => {
    const cfg = load(
      job(
        '    onFailure:\n      retry:\n        maximumRetries: -1\n        initialDelay: 0\n        maximumDelay: 5\n        backoffMultiplier: 1.5\n' +
          '      report:\n        webhook:\n          url:\n            value: http://127.0.0.1:9/hook\n          headers:\n            X-A: b\n' +
          '        mail:\n          from: a@example.com\n          to: b@example.com\n          password:\n            fromEnvVar: SMTP_PASSWORD\n' +
          '    onPermanentFailure:\n      report:\n        shell:\n          command: echo failed\n' +
          '    onSuccess:\n      report:\n        sentry:\n          dsn:\n            fromEnvVar: SENTRY_DSN\n          level: warning\n          fingerprint:\n            - x\n' +
          '    statsd:\n      prefix: p\n      host: 127.0.0.1\n      port: "8125"\n',
      ),
    );
    const j = cfg.jobs[0]!;
    expect(j.onFailure.retry).toEqual({
      maximumRetries: -1,
      initialDelay: 0,
      maximumDelay: 5,
      backoffMultiplier: 1.5,
    });
    expect(j.onFailure.report.webhook?.headers).toEqual({ 'X-A': 'b' });
    expect(j.onFailure.report.webhook?.method).toBe('POST');
    expect(j.onFailure.report.mail?.smtpPort).toBe(25);
    expect(j.onPermanentFailure.report.shell).toEqual({ command: 'echo failed' });
    expect(j.onSuccess.report.sentry?.fingerprint).toEqual(['x']);
    expect(j.statsd).toEqual({ prefix: 'p', host: '127.0.0.1', port: 8125 });
  });

  it('requires mail from/to, shell command and statsd keys when those blocks are written', () => {
    expect(
      configMessageOf(load, job('    onSuccess:\n      report:\n        mail:\n          from: a@b\n')),
    ).toContain("required key(s) 'to' not found");
    expect(
      configMessageOf(
        load,
        job('    onSuccess:\n      report:\n        shell:\n          shell: /bin/bash\n'),
      ),
    ).toContain("required key(s) 'command' not found");
    expect(configMessageOf(load, job('    statsd:\n      prefix: p\n'))).toContain(
      "required key(s) 'host', 'port' not found",
    );
    expect(configMessageOf(load, job('    failsWhen:\n      always: true\n'))).toContain(
      "required key(s) 'producesStdout' not found",
    );
  });
});

describe('secrets, env_file, user and group', () => {
  it('requires a source for every secret', () => {
    const msg = configMessageOf(
      load,
      `${STATE}${job('    secrets:\n      - name: token\n        value:\n')}`,
    );
    expect(msg).toContain("job 'j': secret 'token' needs a value, fromFile or fromEnvVar source");
  });

  it('reads env_file relative to the working directory: file first, then environment', () => {
    const cfg = load(
      job(
        '    env_file: vars.env\n    environment:\n      - key: B\n        value: job\n      - key: C\n        value: new\n',
      ),
      {
        'vars.env': '# comment\n\n  A = 1 \nB=file\nB=file2\nQ="quoted"\n',
      },
    );
    expect(cfg.jobs[0]!.effectiveEnvironment).toEqual([
      { key: 'A', value: '1' },
      { key: 'B', value: 'job' },
      { key: 'Q', value: '"quoted"' },
      { key: 'C', value: 'new' },
    ]);
    expect(cfg.files.some((f) => f.endsWith('vars.env'))).toBe(true);
  });

  it('reports an unreadable or malformed env_file', () => {
    expect(configMessageOf(load, job('    env_file: missing.env\n'))).toMatch(
      /jobs\[0\]\.env_file: Could not load env_file: \[Errno 2\] No such file or directory: '.*missing\.env'/,
    );
    expect(
      configMessageOf(load, job('    env_file: bad.env\n'), { 'bad.env': 'GOOD=1\nno equals here\n' }),
    ).toContain("Invalid line in env_file: 'no equals here'");
  });

  it('resolves user and group names and numbers, as root only', () => {
    const cfg = load(job('    user: root\n    group: "0"\n'));
    expect(cfg.jobs[0]!.runAs).toEqual({ uid: 0, gid: 0, login: 'root' });
    expect(configMessageOf(load, job('    user: no-such-user-xyz\n'))).toContain(
      "User not found: 'no-such-user-xyz'",
    );
    expect(configMessageOf(load, job('    group: no-such-group-xyz\n'))).toContain(
      "Group not found: 'no-such-group-xyz'",
    );
    expect(configMessageOf(load, job('    user: "0"\n'), {}, { euid: 1000 })).toContain(
      'Job j wants to change user or group, but cronstable is not running as superuser',
    );
    expect(configMessageOf(load, job('    user: root\n'), {}, { platform: 'win32' })).toContain(
      'changing user/group is not supported on Windows',
    );
  });
});

describe('sections (specs 03, 05, 06)', () => {
  it('validates the state block', () => {
    expect(load(`${STATE}  gcGraceSeconds: 0\n`).state?.gcGraceSeconds).toBe(0);
    expect(configMessageOf(load, `${STATE}  gcGraceSeconds: 3600\n`)).toContain(
      'state.gcGraceSeconds: state: gcGraceSeconds must be <= 0 or >= 86400',
    );
    expect(configMessageOf(load, `${STATE}  slotTtlSeconds: 4\n`)).toContain(
      'slotTtlSeconds must be a finite number >= 5',
    );
    expect(configMessageOf(load, `${STATE}  maxOpsPerSecond: .inf\n`)).toContain(
      'maxOpsPerSecond must be a finite number >= 0',
    );
    expect(configMessageOf(load, `${STATE}  jobApi:\n    listen: unix:///tmp/x.sock\n`)).toContain(
      // Spec 10 §3.5's text (formerly "scheme 'unix' is not supported").
      'state.jobApi.listen must be an http:// or https:// URL or a bare host:port (the job CLI reaches the endpoint over TCP only)',
    );
    expect(configMessageOf(load, `${STATE}  jobApi:\n    listen: 0.0.0.0:9000\n`)).toContain(
      'not a loopback address',
    );
    expect(
      load(`${STATE}  jobApi:\n    listen: 0.0.0.0:9000\n    allowNonLoopbackBind: true\n`).state?.jobApi
        ?.listen,
    ).toBe('0.0.0.0:9000');
    expect(configMessageOf(load, 'state:\n  path: " "\n')).toContain('path must not be empty');
    expect(configMessageOf(load, 'state:\n  topology: shared\n')).toContain(
      "required key(s) 'path' not found",
    );
  });

  const gossip = (extra = '', peers = ['10.0.0.2:8443', '10.0.0.3:8443']) =>
    `cluster:\n  nodeName: a\n  listen: 0.0.0.0:8443\n  tls:\n    ca: ca.pem\n    cert: a.pem\n    key: a.key\n  peers:\n${peers.map((p) => `    - host: "${p}"\n`).join('')}${extra}`;

  it('validates the cluster block', () => {
    expect(load(gossip('  electLeader: true\n  distribution: spread\n')).cluster?.distribution).toBe(
      'spread',
    );
    expect(configMessageOf(load, gossip('  electLeader: true\n', ['10.0.0.2:8443']))).toContain(
      '2-node cluster',
    );
    expect(configMessageOf(load, gossip('', ['::1:8443']))).toContain('IPv6 address must be bracketed');
    expect(configMessageOf(load, gossip('', ['host:0']))).toContain('port must be between 1 and 65535');
    expect(configMessageOf(load, 'cluster:\n  nodeName: a\n')).toContain(
      "the gossip backend requires 'listen', 'tls', 'peers'",
    );
    expect(
      configMessageOf(
        load,
        'cluster:\n  backend: filesystem\n  distribution: spread\n  filesystem:\n    path: /s\n',
      ),
    ).toContain('distribution: spread is only supported by the gossip backend');
    expect(
      configMessageOf(load, 'cluster:\n  backend: filesystem\n  filesystem:\n    path: /s\n    ttl: 2\n'),
    ).toContain('filesystem.ttl must be');
    expect(configMessageOf(load, 'cluster:\n  backend: etcd\n  filesystem:\n    path: /s\n')).toContain(
      "a 'filesystem' block has no effect with backend: etcd",
    );
    expect(
      configMessageOf(
        load,
        'cluster:\n  backend: etcd\n  etcd:\n    endpoints:\n      - http://u:p@127.0.0.1:2379\n',
      ),
    ).toContain('must not carry credentials');
    expect(
      configMessageOf(load, 'cluster:\n  backend: etcd\n  etcd:\n    tls:\n      ca: ca.pem\n'),
    ).toContain('no endpoint uses https://');
    expect(
      configMessageOf(
        load,
        'cluster:\n  backend: kubernetes\n  kubernetes:\n    leaseDurationSeconds: 10\n    renewDeadlineSeconds: 10\n',
      ),
    ).toContain('leaseDurationSeconds must be > renewDeadlineSeconds');
    expect(
      configMessageOf(load, 'cluster:\n  backend: kubernetes\n  kubernetes:\n    leaseName: Bad_Name\n'),
    ).toContain('RFC 1123 subdomain');
    expect(configMessageOf(load, gossip('  observability:\n    listen: 0.0.0.0:9443\n'))).toContain(
      'may only carry shareNodeStats',
    );
  });

  it('validates the web block', () => {
    const web = (extra: string) => `web:\n  listen:\n    - http://127.0.0.1:8080\n${extra}`;
    const cfg = load(
      web(
        '  headers:\n    X-Meridian-Platform: grand-tour\n  metrics:\n    public: true\n    durationBuckets:\n      - 0.05\n      - 1\n      - 60\n  nodeHistory:\n    interval: 2\n    points: 1800\n',
      ),
    );
    expect(cfg.web?.metrics).toEqual({ public: true, durationBuckets: [0.05, 1, 60] });
    expect(load(web('  metrics: false\n')).web?.metrics).toBe(false);
    expect(configMessageOf(load, web('  metrics:\n    durationBuckets:\n      - 1\n      - 1\n'))).toContain(
      'strictly increasing',
    );
    expect(configMessageOf(load, web('  nodeHistory:\n    interval: 0.5\n'))).toContain(
      'nodeHistory.interval must be >= 1.0',
    );
    expect(configMessageOf(load, web('  nodeHistory:\n    points: 5\n'))).toContain(
      'nodeHistory.points must be between 10 and 50000',
    );
    expect(configMessageOf(load, web('  socketMode: rw\n'))).toContain(
      "socketMode 'rw' must be an octal mode",
    );
    expect(configMessageOf(load, web('  tls: x\n'))).toContain('web.tls: expected a mapping');
    // Spec 09 §7.4: formerly a warning, now a load error (v34 in config-tighten.test.ts).
    expect(configMessageOf(load, 'web:\n  listen:\n    - https://127.0.0.1:8443\n')).toContain(
      'web.listen has https:// address(es) https://127.0.0.1:8443 but no web.tls.cert',
    );
  });

  it('accepts a logging section, warning (not failing) on an unsupported version', () => {
    const cfg = load('logging:\n  version: 2\n  root:\n    level: INFO\n');
    expect(cfg.logging?.root).toEqual({ level: 'INFO' });
    expect(cfg.warnings.map((w) => w.message).join()).toContain('logging: version must be 1');
    expect(configMessageOf(load, 'logging:\n  root:\n    level: INFO\n')).toContain(
      "required key(s) 'version' not found",
    );
  });

  it('requires web for mcp', () => {
    expect(configMessageOf(load, 'mcp:\n')).toContain("an 'mcp' section requires a 'web' section");
    expect(load('web:\n  listen:\n    - http://127.0.0.1:1\nmcp:\n').mcp).toEqual({});
  });
});

describe('cross-section checks (spec 01 §7.3)', () => {
  it('requires state for cluster-scoped concurrency, naming every offender sorted', () => {
    const msg = configMessageOf(
      load,
      'jobs:\n  - name: zeta\n    command: x\n    schedule: "* * * * *"\n    concurrencyPolicy: Forbid\n    concurrencyScope: cluster\n' +
        '  - name: alpha\n    command: x\n    schedule: "* * * * *"\n    concurrencyPolicy: Replace\n    concurrencyScope: cluster\n',
    );
    expect(msg).toContain("concurrencyScope: cluster requires a 'state' section");
    expect(msg).toContain('offending job(s): alpha, zeta');
  });

  it('requires state and an enabled job API for secrets', () => {
    const secretJob = job('    secrets:\n      - name: t\n        fromEnvVar: TOKEN\n');
    expect(configMessageOf(load, secretJob)).toContain(
      "job 'secrets' are staged over the state loopback endpoint, which requires a 'state' section; offending job(s): j",
    );
    expect(configMessageOf(load, `${STATE}  jobApi:\n    enabled: false\n${secretJob}`)).toContain(
      'state.jobApi.enabled is false; offending job(s): j',
    );
    expect(load(`${STATE}${secretJob}`).jobs[0]!.secrets).toEqual([{ name: 't', fromEnvVar: 'TOKEN' }]);
  });
});

describe('DAGs (spec 04 §2)', () => {
  const dag = (tasks: string, extra = '') => `${STATE}dags:\n  - name: d\n${extra}    tasks:\n${tasks}`;
  const task = (id: string, extra = '') => `      - id: ${id}\n        command: echo ${id}\n${extra}`;

  it('loads a DAG with every task kind and builds launch names', () => {
    const cfg = load(
      dag(
        task('list') +
          task(
            'work',
            '        dependsOn:\n          - list\n        expand:\n          fromTask: list\n          key: ids\n        retries: 1\n',
          ) +
          task(
            'wait',
            '        type: sensor\n        dependsOn:\n          - work\n        pokeIntervalSeconds: 5\n',
          ) +
          '      - id: gate\n        type: approval\n        onReject: skip\n        dependsOn:\n          - wait\n' +
          task(
            'ship',
            '        dependsOn:\n          - gate\n          - gate\n        triggerRule: all_done\n',
          ),
        '    schedule: "*/10 * * * *"\n    onMissed: run-once\n    retainRuns: 5\n',
      ),
    );
    const d = cfg.dags[0]!;
    expect(d.tasks.map((t) => t.launchName)).toEqual(['d.list', 'd.work', 'd.wait', 'd.gate', 'd.ship']);
    expect(d.tasks[1]!.expand).toEqual({ fromTask: 'list', key: 'ids' });
    expect(d.tasks[3]!.command).toBeNull();
    expect(d.scheduleText).toBe('*/10 * * * *');
    expect(d.retainRuns).toBe(5);
    expect(d.tasks[0]!.captureStderr).toBe(true);
  });

  it('lints a DAG schedule under the dag:<name> identity', () => {
    const cfg = load(
      dag(task('a'), '    schedule: "0 1 * * *"\n    timezone: America/New_York\n'),
      {},
      { nowMs: Date.parse('2026-10-20T00:00:00Z') },
    );
    expect(cfg.warnings.map((w) => w.message).join('\n')).toMatch(
      /job 'dag:d': schedule '0 1 \* \* \*': \[dst-repeated-time\]/,
    );
  });

  const bad: [string, string][] = [
    [dag(''), "dag 'd': needs at least one task"],
    [dag(task('a'), '    retainRuns: 0\n'), "dag 'd': retainRuns must be >= 1"],
    [dag(task('a'), '    schedule: "@reboot"\n'), '@reboot is not supported for dags'],
    [dag(task('a#1')), "task id 'a#1' must be non-empty and may not contain '#' or '/'"],
    [dag(task('a') + task('a')), "duplicate task id 'a'"],
    [dag(task('a', '        dependsOn:\n          - ghost\n')), "task 'a': depends on unknown task 'ghost'"],
    [dag(task('a', '        dependsOn:\n          - a\n')), "task 'a': cannot depend on itself"],
    [
      dag(
        task('a', '        dependsOn:\n          - b\n') +
          task('b', '        dependsOn:\n          - a\n') +
          task('c'),
      ),
      "dag 'd': the dependency graph has a cycle involving: a, b",
    ],
    [dag(task('a', '        retries: -1\n')), 'retry-forever is not supported for DAG tasks'],
    [dag('      - id: a\n'), "task 'a': task needs a command"],
    [
      dag(task('a', '        triggerRule: one_failed\n')),
      "expected one of 'all_success', 'all_done', found 'one_failed'",
    ],
    [dag(task('a', '        schedule: "* * * * *"\n')), "unexpected key not in schema 'schedule'"],
    [
      dag(task('a') + task('b', '        expand:\n          fromTask: a\n          key: k\n')),
      "expand.fromTask 'a' must be a direct, non-mapped dependency",
    ],
    [
      dag(task('a', '        type: sensor\n        expand:\n          fromTask: a\n          key: k\n')),
      'only a plain task can be mapped',
    ],
    // spec 04 §12 cross-cutting: no run-concurrency limit, '/' in ids, chained mapping.
    [dag(task('a'), '    maxActiveRuns: 1\n'), "unexpected key not in schema 'maxActiveRuns'"],
    [dag(task('a/b')), "task id 'a/b' must be non-empty and may not contain '#' or '/'"],
    [
      dag(
        task('a') +
          task(
            'b',
            '        dependsOn:\n          - a\n        expand:\n          fromTask: a\n          key: k\n',
          ) +
          task(
            'c',
            '        dependsOn:\n          - b\n        expand:\n          fromTask: b\n          key: k\n',
          ),
      ),
      "expand.fromTask 'b' must be a direct, non-mapped dependency",
    ],
  ];
  for (const [yaml, message] of bad) {
    it(`rejects: ${message}`, () => {
      expect(configMessageOf(load, yaml)).toContain(message);
    });
  }

  it('needs a state section with the job API, unique names and no launch-name collisions', () => {
    const plain = 'dags:\n  - name: d\n    tasks:\n      - id: a\n        command: x\n';
    expect(configMessageOf(load, plain)).toContain("dags require a 'state' section; dag(s): d");
    expect(configMessageOf(load, `${STATE}  jobApi:\n    enabled: false\n${plain}`)).toContain(
      'dags need the state loopback endpoint',
    );
    expect(
      configMessageOf(load, `${STATE}${plain}  - name: d\n    tasks:\n      - id: b\n        command: x\n`),
    ).toContain('duplicate dag names: d');
    expect(
      configMessageOf(
        load,
        `${STATE}${plain}jobs:\n  - name: d.a\n    command: x\n    schedule: "* * * * *"\n`,
      ),
    ).toContain("launch name 'd.a' collides with a job of the same name");
    expect(
      configMessageOf(
        load,
        `${STATE}dags:\n  - name: a\n    tasks:\n      - id: b.c\n        command: x\n  - name: a.b\n    tasks:\n      - id: c\n        command: x\n`,
      ),
    ).toContain("launch name 'a.b.c' collides with a task of dag 'a'");
  });
});

describe('blank values where a list or a map is expected (issue 8, spec 01 §1.6)', () => {
  const GOSSIP =
    'cluster:\n  listen: 0.0.0.0:9443\n  tls:\n    ca: /c\n    cert: /c\n    key: /k\n  peers:\n    - host: a:1\n';
  const blank: [string, string, RegExp][] = [
    ['top-level jobs', 'jobs:\n', /conf\.yaml:1:6: jobs: expected a list of mappings, found an empty value/],
    [
      'jobs followed only by comments',
      'jobs:\n# none yet\n',
      /conf\.yaml:1:6: jobs: expected a list of mappings/,
    ],
    ['jobs as ""', 'jobs: ""\n', /conf\.yaml:1:7: jobs: expected a list of mappings, found an empty value/],
    [
      'top-level dags',
      `${STATE}dags:\n`,
      /conf\.yaml:3:6: dags: expected a list of mappings, found an empty value/,
    ],
    ['include', 'include:\n', /conf\.yaml:1:9: include: expected a list of text, found an empty value/],
    ['defaults', 'defaults:\n', /conf\.yaml:1:10: defaults: expected a mapping, found an empty value/],
    [
      'job environment',
      job('    environment:\n    shell: /bin/sh\n'),
      /conf\.yaml:5:17: jobs\[0\]\.environment: expected a list of mappings, found an empty value/,
    ],
    [
      'defaults environment',
      `defaults:\n  environment:\n${job()}`,
      /conf\.yaml:2:15: defaults\.environment: expected a list of mappings, found an empty value/,
    ],
    [
      'job secrets list',
      `${STATE}${job('    secrets:\n')}`,
      /conf\.yaml:7:13: jobs\[0\]\.secrets: expected a list of mappings, found an empty value/,
    ],
    [
      'stateAllowedScopes',
      job('    stateAllowedScopes:\n'),
      /conf\.yaml:5:24: jobs\[0\]\.stateAllowedScopes: expected a list of text, found an empty value/,
    ],
    [
      'sentry fingerprint',
      job('    onFailure:\n      report:\n        sentry:\n          fingerprint:\n'),
      /conf\.yaml:8:23: jobs\[0\]\.onFailure\.report\.sentry\.fingerprint: expected a list of text, found an empty value/,
    ],
    [
      'task dependsOn',
      `${STATE}dags:\n  - name: d\n    tasks:\n      - id: a\n        command: x\n        dependsOn:\n`,
      /conf\.yaml:8:19: dags\[0\]\.tasks\[0\]\.dependsOn: expected a list of text, found an empty value/,
    ],
    [
      'task environment',
      `${STATE}dags:\n  - name: d\n    tasks:\n      - id: a\n        command: x\n        environment:\n`,
      /conf\.yaml:8:21: dags\[0\]\.tasks\[0\]\.environment: expected a list of mappings/,
    ],
    [
      'cluster peers',
      'cluster:\n  peers:\n',
      /conf\.yaml:2:9: cluster\.peers: expected a list of mappings, found an empty value/,
    ],
    [
      'cluster observability',
      `${GOSSIP}  observability:\n`,
      /conf\.yaml:9:17: cluster\.observability: expected a mapping, found an empty value/,
    ],
    [
      'etcd endpoints',
      'cluster:\n  backend: etcd\n  etcd:\n    endpoints:\n',
      /conf\.yaml:4:15: cluster\.etcd\.endpoints: expected a list of text, found an empty value/,
    ],
    [
      'etcd tls',
      'cluster:\n  backend: etcd\n  etcd:\n    tls:\n',
      /conf\.yaml:4:9: cluster\.etcd\.tls: expected a mapping, found an empty value/,
    ],
    [
      'state jobApi',
      `${STATE}  jobApi:\n`,
      /conf\.yaml:3:10: state\.jobApi: expected a mapping, found an empty value/,
    ],
    [
      'web allowedOrigins',
      'web:\n  listen:\n    - http://127.0.0.1:1\n  allowedOrigins:\n',
      /conf\.yaml:4:18: web\.allowedOrigins: expected a list of text, found an empty value/,
    ],
    [
      'web metrics durationBuckets',
      'web:\n  listen:\n    - http://127.0.0.1:1\n  metrics:\n    durationBuckets:\n',
      /conf\.yaml:5:21: web\.metrics\.durationBuckets: expected a list of numbers, found an empty value/,
    ],
    ['state', 'state:\n', /conf\.yaml:1:7: state: expected a mapping, found an empty value/],
    ['web', 'web:\n', /conf\.yaml:1:5: web: expected a mapping, found an empty value/],
    ['logging', 'logging:\n', /conf\.yaml:1:9: logging: expected a mapping, found an empty value/],
  ];
  for (const [what, yaml, message] of blank) {
    it(`rejects a blank ${what}`, () => {
      expect(configMessageOf(load, yaml)).toMatch(message);
    });
  }

  it('reads blank DAG tasks as no tasks, rejected at the tasks key', () => {
    expect(configMessageOf(load, `${STATE}dags:\n  - name: d\n    tasks:\n`)).toMatch(
      /conf\.yaml:5:5: dags\[0\]\.tasks: dag 'd': needs at least one task/,
    );
  });

  it('keeps a blank allowed where the spec gives it a meaning', () => {
    // web.listen blank: the empty list that turns the server off (spec 06 §1).
    expect(load('web:\n  listen:\n').web?.listen).toEqual([]);
    // mcp: "map or empty" (spec 01 §2).
    expect(load('web:\n  listen:\n    - http://127.0.0.1:1\nmcp:\n').mcp).toEqual({});
    // An empty value over a map keeps the defaults' map (spec 01 §1.5, 02 §1).
    const cfg = load(
      `defaults:\n  failsWhen:\n    producesStdout: true\n  onFailure:\n    retry:\n      maximumRetries: 2\n      initialDelay: 1\n      maximumDelay: 5\n      backoffMultiplier: 2\n${job('    failsWhen:\n    onFailure:\n    onSuccess:\n    statsd:\n')}`,
    );
    expect(cfg.jobs[0]!.failsWhen.producesStdout).toBe(true);
    expect(cfg.jobs[0]!.onFailure.retry.maximumRetries).toBe(2);
    expect(cfg.jobs[0]!.statsd).toBeNull();
    // Secret sources and optional scalars stay EmptyNone|Str.
    expect(
      load(job('    env_file:\n    timezone:\n    startingDeadlineSeconds:\n')).jobs[0]!.timezone,
    ).toBeNull();
  });
});

describe('validation without holes (issue 14.5)', () => {
  const dagWith = (extra: string) =>
    `${STATE}dags:\n  - name: d\n    tasks:\n      - id: a\n        command: x\n${extra}`;
  const web = (extra: string) => `web:\n  listen:\n    - http://127.0.0.1:1\n${extra}`;
  const nonFinite: [string, string, RegExp][] = [
    ['killTimeout .nan', job('    killTimeout: .nan\n'), /conf\.yaml:5:18: jobs\[0\]\.killTimeout: /],
    [
      'executionTimeout .inf',
      job('    executionTimeout: .inf\n'),
      /conf\.yaml:5:23: jobs\[0\]\.executionTimeout: /,
    ],
    [
      'retry delays',
      job(
        '    onFailure:\n      retry:\n        maximumRetries: 1\n        initialDelay: 1\n        maximumDelay: -.inf\n        backoffMultiplier: 2\n',
      ),
      /conf\.yaml:9:23: jobs\[0\]\.onFailure\.retry\.maximumDelay: /,
    ],
    [
      'monitorResources.interval',
      job('    monitorResources:\n      interval: .inf\n'),
      /conf\.yaml:6:17: jobs\[0\]\.monitorResources\.interval: /,
    ],
    [
      'webhook timeout',
      job('    onFailure:\n      report:\n        webhook:\n          timeout: .NaN\n'),
      /conf\.yaml:8:20: jobs\[0\]\.onFailure\.report\.webhook\.timeout: /,
    ],
    [
      'task retryDelaySeconds',
      dagWith('        retryDelaySeconds: .inf\n'),
      /conf\.yaml:8:28: dags\[0\]\.tasks\[0\]\.retryDelaySeconds: /,
    ],
    [
      'web nodeHistory.interval',
      web('  nodeHistory:\n    interval: .inf\n'),
      /conf\.yaml:5:15: web\.nodeHistory\.interval: /,
    ],
  ];
  for (const [what, yaml, where] of nonFinite) {
    it(`rejects a non-finite ${what} where it is written`, () => {
      const msg = configMessageOf(load, yaml);
      expect(msg).toMatch(where);
      expect(msg).toMatch(/expected a number, found '[-+]?\.(inf|nan|NaN)' \(it must be finite\)$/);
    });
  }

  it('rejects counts too large to be exact (400 nines would read as Infinity)', () => {
    expect(configMessageOf(load, job(`    saveLimit: ${'9'.repeat(400)}\n`))).toMatch(
      /conf\.yaml:5:16: jobs\[0\]\.saveLimit: expected an integer, found '9{117}\.\.\.' \(out of range\)$/,
    );
    expect(configMessageOf(load, dagWith('    retainRuns: 9007199254740993\n'))).toContain(
      "dags[0].retainRuns: expected an integer, found '9007199254740993' (out of range)",
    );
    expect(load(job('    saveLimit: 9007199254740991\n')).jobs[0]!.saveLimit).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('rejects ports outside 1-65535 at the port key', () => {
    const statsd = (port: string) =>
      job(`    statsd:\n      prefix: p\n      host: 127.0.0.1\n      port: ${port}\n`);
    for (const p of ['0', '65536', '-1', '99999999']) {
      expect(configMessageOf(load, statsd(p))).toMatch(
        new RegExp(
          `conf\\.yaml:8:13: jobs\\[0\\]\\.statsd\\.port: expected a port number \\(1-65535\\), found '${p}' \\(out of range\\)$`,
        ),
      );
    }
    expect(load(statsd('65535')).jobs[0]!.statsd?.port).toBe(65535);
    expect(
      configMessageOf(
        load,
        job(
          '    onFailure:\n      report:\n        mail:\n          from: a@b\n          to: c@d\n          smtpPort: 0\n',
        ),
      ),
    ).toMatch(/conf\.yaml:10:21: jobs\[0\]\.onFailure\.report\.mail\.smtpPort: expected a port number/);
  });

  const badNames: [string, string, string][] = [
    ['NUL', '"a\\0b"', 'contains a NUL character'],
    ['a control character', '"bell\\a"', 'contains a control character (U+0007)'],
    ['a line break', '"two\\nlines"', 'contains a control character (U+000A)'],
    ['a C1 control', '"next\\Nline"', 'contains a control character (U+0085)'],
    [
      'an unpaired surrogate',
      '"half\\ud800"',
      'contains an unpaired surrogate (it cannot be encoded as UTF-8)',
    ],
  ];
  for (const [what, yamlName, problem] of badNames) {
    it(`rejects ${what} in a job name, a DAG name and a task id, at the name`, () => {
      const jobYaml = `jobs:\n  - command: x\n    name: ${yamlName}\n    schedule: "* * * * *"\n`;
      const jobMsg = configMessageOf(load, jobYaml);
      expect(jobMsg).toMatch(/conf\.yaml:3:5: jobs\[0\]\.name: job '.*': the name /);
      expect(jobMsg.endsWith(problem)).toBe(true);
      expect(jobMsg).not.toMatch(/[\0\u0007\n\u0085\ud800]/);
      const dagMsg = configMessageOf(
        load,
        `${STATE}dags:\n  - name: ${yamlName}\n    tasks:\n      - id: a\n        command: x\n`,
      );
      expect(dagMsg).toMatch(/conf\.yaml:4:5: dags\[0\]\.name: dag '.*': the name /);
      expect(dagMsg.endsWith(problem)).toBe(true);
      const taskMsg = configMessageOf(
        load,
        `${STATE}dags:\n  - name: d\n    tasks:\n      - command: x\n        id: ${yamlName}\n`,
      );
      expect(taskMsg).toMatch(/conf\.yaml:7:9: dags\[0\]\.tasks\[0\]\.id: dag 'd': task id '.*' /);
      expect(taskMsg.endsWith(problem)).toBe(true);
    });
  }

  it('accepts printable Unicode names, astral characters included', () => {
    const cfg = load('jobs:\n  - name: "café ☕ 🚀 名前"\n    command: x\n    schedule: "* * * * *"\n');
    expect(cfg.jobs[0]!.name).toBe('café ☕ 🚀 名前');
  });

  it('quotes at most one line of the file, cut to 120 characters', () => {
    const long = 'k'.repeat(500);
    const unknown = configMessageOf(load, `${long}: 1\n`);
    expect(unknown).toBe(
      `${unknown.split(':')[0]}:1:1: ${long}: unexpected key not in schema '${'k'.repeat(117)}...'`,
    );
    const block = configMessageOf(load, job(`    saveLimit: |\n${'      line of text\n'.repeat(50)}`));
    expect(block).toMatch(
      /jobs\[0\]\.saveLimit: expected an integer, found '(line of text\\n){8}line \.\.\.'$/,
    );
    expect(block).not.toContain('\n');
    const schedule = configMessageOf(load, job('', `"${'61,'.repeat(300)}1 * * * *"`));
    const quoted = /invalid schedule '([^']*)'/.exec(schedule)![1]!;
    expect(quoted.length).toBe(120);
    const crontab = configMessageOf(load, 'include:\n  - x.crontab\n', {
      'x.crontab': `* * * * ${'x'.repeat(500)}\n`,
    });
    expect(crontab).toMatch(/x\.crontab:1:1: not a valid crontab line: \* \* \* \* x{109}\.\.\.$/);
    const envFile = configMessageOf(load, job('    env_file: vars.env\n'), {
      'vars.env': `${'v'.repeat(300)}\n`,
    });
    expect(envFile).toContain(
      `conf.yaml:5:5: jobs[0].env_file: Invalid line in env_file: '${'v'.repeat(117)}...'`,
    );
  });
});
