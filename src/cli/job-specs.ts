// The job CLI's command table (spec 03 §7, spec 04 §6.2): every verb, action, flag and help text.
import type { CommandSpec, OptionSpec } from './job-args.ts';

export type JobVerb = 'state' | 'cursor' | 'idempotent' | 'lock' | 'artifact' | 'secret' | 'xcom';

export const JOB_VERBS: readonly JobVerb[] = [
  'state',
  'cursor',
  'idempotent',
  'lock',
  'artifact',
  'secret',
  'xcom',
];

const SCOPE: OptionSpec[] = [
  {
    flags: ['--scope'],
    dest: 'scope',
    type: 'string',
    metavar: 'SCOPE',
    help: "state scope (default: the job's own scope)",
  },
  {
    flags: ['--global'],
    dest: 'global',
    type: 'flag',
    help: 'use the global scope (same as --scope global)',
  },
];
const SCOPE_GROUP = [['scope', 'global']];

function scoped(
  prog: string,
  description: string,
  positionals: CommandSpec['positionals'],
  extra: OptionSpec[] = [],
) {
  return {
    prog,
    description,
    positionals,
    options: [...extra, ...SCOPE],
    exclusive: SCOPE_GROUP,
  } satisfies CommandSpec;
}

const LOCK_FLAGS: OptionSpec[] = [
  {
    flags: ['--permits'],
    dest: 'permits',
    type: 'int',
    metavar: 'N',
    help: 'number of concurrent holders (semaphore; default 1 = mutex)',
  },
  { flags: ['--wait'], dest: 'wait', type: 'flag', help: 'keep trying until --timeout elapses' },
  {
    flags: ['--timeout'],
    dest: 'timeout',
    type: 'float',
    metavar: 'S',
    help: 'seconds to keep trying with --wait (default 0: one attempt)',
  },
  {
    flags: ['--ttl'],
    dest: 'ttl',
    type: 'float',
    metavar: 'S',
    help: 'lease TTL in seconds (default: state.jobApi.lockTtlSeconds; at least 5)',
  },
];

/** Actions per verb (verbs without actions have a single spec under ''). */
export const JOB_COMMANDS: Record<JobVerb, Record<string, CommandSpec>> = {
  state: {
    get: scoped('cronstable state get', 'Print the value stored under KEY.', [{ name: 'KEY', help: 'key' }]),
    set: scoped(
      'cronstable state set',
      'Store VALUE under KEY (a string, or any JSON value with --json).',
      [
        { name: 'KEY', help: 'key' },
        { name: 'VALUE', help: 'value' },
      ],
      [{ flags: ['--json'], dest: 'json', type: 'flag', help: 'parse VALUE as JSON' }],
    ),
    delete: scoped('cronstable state delete', 'Delete KEY (exit 4 if it did not exist).', [
      { name: 'KEY', help: 'key' },
    ]),
    keys: scoped('cronstable state keys', 'List the keys of the scope, one per line.', []),
  },
  cursor: {
    get: scoped('cronstable cursor get', 'Print the cursor NAME.', [{ name: 'NAME', help: 'cursor name' }]),
    advance: scoped(
      'cronstable cursor advance',
      'Move the cursor NAME forward to VALUE (parsed as int, else float, else string); print the stored value.',
      [
        { name: 'NAME', help: 'cursor name' },
        { name: 'VALUE', help: 'new position' },
      ],
      [{ flags: ['--force'], dest: 'force', type: 'flag', help: 'store VALUE even if it is not greater' }],
    ),
  },
  idempotent: {
    '': scoped(
      'cronstable idempotent',
      'Claim KEY fleet-wide: exit 0 if this caller won it (do the work), 5 if it was already claimed.',
      [{ name: 'KEY', help: 'idempotency key' }],
      [
        {
          flags: ['--ttl'],
          dest: 'ttl',
          type: 'float',
          metavar: 'S',
          help: 'the claim can be won again after S seconds (default 0: permanent)',
        },
        { flags: ['--release'], dest: 'release', type: 'flag', help: 'release the claim instead' },
      ],
    ),
  },
  lock: {
    acquire: scoped(
      'cronstable lock acquire',
      'Acquire a lock (held until `lock release TOKEN` or the end of the run); print its token.',
      [{ name: 'NAME', help: 'lock name' }],
      LOCK_FLAGS,
    ),
    run: scoped(
      'cronstable lock run',
      'Run CMD while holding the lock NAME (usage: cronstable lock run NAME [flags] -- CMD...).',
      [{ name: 'NAME', help: 'lock name' }],
      LOCK_FLAGS,
    ),
    release: {
      prog: 'cronstable lock release',
      description: 'Release a lock acquired by this run.',
      positionals: [{ name: 'TOKEN', help: 'hold token printed by lock acquire' }],
      options: [],
    },
  },
  artifact: {
    put: scoped(
      'cronstable artifact put',
      'Publish the bytes of FILE (or stdin) as artifact NAME; print its sha256.',
      [
        { name: 'NAME', help: 'artifact name' },
        { name: 'FILE', help: 'file to publish (default or - : stdin)', optional: true },
      ],
    ),
    get: scoped(
      'cronstable artifact get',
      'Write the newest version of artifact NAME to stdout (or -o FILE).',
      [{ name: 'NAME', help: 'artifact name' }],
      [
        {
          flags: ['-o', '--output'],
          dest: 'output',
          type: 'string',
          metavar: 'FILE',
          help: 'write to FILE instead of stdout',
        },
      ],
    ),
    list: scoped('cronstable artifact list', 'List artifact names of the scope, one per line.', []),
  },
  secret: {
    get: {
      prog: 'cronstable secret get',
      description: 'Print the run-scoped secret NAME.',
      positionals: [{ name: 'NAME', help: 'secret name' }],
      options: [],
    },
    list: {
      prog: 'cronstable secret list',
      description: 'List the names of the secrets staged for this run.',
      positionals: [],
      options: [],
    },
  },
  xcom: {
    push: {
      prog: 'cronstable xcom push',
      description: "Publish FILE (or stdin) as this task's XCom value KEY.",
      positionals: [{ name: 'FILE', help: 'file to publish (default or - : stdin)', optional: true }],
      options: [
        { flags: ['--key'], dest: 'key', type: 'string', metavar: 'K', help: 'XCom key', required: true },
      ],
    },
    pull: {
      prog: 'cronstable xcom pull',
      description: 'Write the XCom value KEY of task T (raw bytes, no added newline).',
      positionals: [],
      options: [
        { flags: ['--task'], dest: 'task', type: 'string', metavar: 'T', help: 'task id', required: true },
        { flags: ['--key'], dest: 'key', type: 'string', metavar: 'K', help: 'XCom key', required: true },
        {
          flags: ['--map-index'],
          dest: 'mapIndex',
          type: 'int',
          metavar: 'I',
          help: 'map index of a mapped task instance',
        },
        {
          flags: ['-o', '--output'],
          dest: 'output',
          type: 'string',
          metavar: 'FILE',
          help: 'write to FILE instead of stdout',
        },
      ],
    },
    list: {
      prog: 'cronstable xcom list',
      description: 'List the XCom values of this DAG run (<taskkey>/<key>), one per line.',
      positionals: [],
      options: [],
    },
  },
};

const VERB_SUMMARY: Record<JobVerb, string> = {
  state: 'Job key-value state (admin actions check/gc/backup/restore/migrate take -c CONFIG).',
  cursor: 'Forward-only cursors.',
  idempotent: 'Fleet-wide idempotency claims.',
  lock: 'Fleet-wide mutexes and semaphores.',
  artifact: 'Content-addressed artifacts.',
  secret: 'Run-scoped secrets.',
  xcom: 'DAG task XCom values (inside a DAG task only).',
};

/** `cronstable <verb> --help`. */
export function verbHelp(verb: JobVerb): string {
  const actions = Object.keys(JOB_COMMANDS[verb]);
  const lines = [
    `usage: cronstable ${verb} [-h] {${actions.join(',')}} ...`,
    '',
    VERB_SUMMARY[verb],
    '',
    'actions:',
    ...actions.map((a) => `  ${a.padEnd(10)}${JOB_COMMANDS[verb][a]!.description}`),
    '',
    `Run 'cronstable ${verb} ACTION --help' for the flags of one action.`,
  ];
  return `${lines.join('\n')}\n`;
}
