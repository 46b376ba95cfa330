// `cronstable -c CONF state check|gc|backup|restore|migrate` (spec 03 §11): offline store
// administration from a config's `state:` section. `-c` may stand before `state` or after the action.
import { parseArgs } from 'node:util';
import type { AdminResult } from '../store/admin.ts';
import type { CliIo } from '../util/cli-io.ts';
import { errorText } from '../util/errors.ts';
import { DEFAULT_CONFIG_PATH } from './usage.ts';
import { loadVerbConfig, verbArgs } from './verb-args.ts';

export const STATE_ADMIN_USAGE = `usage: cronstable [-c CONF] state ACTION [options]

Offline administration of the durable store named by the config's state: section.

actions:
  check                        writability probe, integrity check, record counts per kind
  gc [--dry-run]               remove state of jobs gone from the config (older than gcGraceSeconds)
  backup -o FILE               consistent snapshot (.tar.gz); safe while the daemon runs
  restore FILE [--force]       restore a backup; stop the fleet first
  migrate --dest PATH [--dest-deployment-id ID] [--force]
                               copy the namespace to another store; stop the fleet first

job actions (inside a running job): get, set, delete, keys (see cronstable state get --help)
`;

const ERROR_PREFIX = 'cronstable state error: ';

const ACTIONS = new Set(['check', 'gc', 'backup', 'restore', 'migrate']);

export async function runStateAdmin(argv: string[], io: CliIo): Promise<number> {
  const split = verbArgs(argv, 'state');
  if (!split) {
    io.err(STATE_ADMIN_USAGE);
    return 2;
  }
  const [action, ...rest] = split.rest;
  if (!action || action === '--help' || action === '-h') {
    (action ? io.out : io.err)(
      action ? STATE_ADMIN_USAGE : `cronstable state: no action given (see --help)\n`,
    );
    return action ? 0 : 2;
  }
  if (!ACTIONS.has(action)) {
    io.err(`cronstable state: unknown action '${action}'\n${STATE_ADMIN_USAGE}`);
    return 2;
  }
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        config: { type: 'string', short: 'c' },
        'dry-run': { type: 'boolean' },
        output: { type: 'string', short: 'o' },
        force: { type: 'boolean' },
        dest: { type: 'string' },
        'dest-deployment-id': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    io.err(`cronstable state ${action}: ${errorText(e)}\n`);
    return 2;
  }
  if (values.help) {
    io.out(STATE_ADMIN_USAGE);
    return 0;
  }
  const usage = (m: string) => {
    io.err(`cronstable state ${action}: ${m}\n`);
    return 2;
  };
  if (action === 'backup' && !values.output)
    return usage('the following arguments are required: -o/--output');
  if (action === 'restore' && positionals.length !== 1) return usage('expected exactly one backup FILE');
  if (action === 'migrate' && !values.dest) return usage('the following arguments are required: --dest');
  if (action !== 'restore' && positionals.length > 0) return usage(`unexpected argument '${positionals[0]}'`);

  const configPath = (values.config as string | undefined) ?? split.config ?? DEFAULT_CONFIG_PATH;
  // Errors and refusals go to stderr, summaries and inventories to stdout (spec 09 §9.7).
  const fail = (m: string) => {
    io.err(`${ERROR_PREFIX}${m}\n`);
    return 1;
  };
  const cfg = loadVerbConfig(configPath);
  if ('error' in cfg) return fail(cfg.error);
  if (!cfg.state) return fail(`the configuration at ${configPath} has no 'state' section`);
  const state = cfg.state;
  const opts = {
    path: state.path,
    namespace: state.deploymentId || 'default',
    topology: state.topology ?? 'auto',
  };
  const admin = await import('../store/admin.ts');
  let result: AdminResult;
  try {
    if (action === 'check') result = await admin.stateCheck(opts);
    else if (action === 'gc') {
      const grace = state.gcGraceSeconds ?? 604_800;
      if (grace <= 0) return fail('garbage collection is disabled (state.gcGraceSeconds <= 0)');
      const scopes = new Set(['global', ...cfg.jobs.flatMap((j) => j.stateAllowedScopes)]);
      result = await admin.stateGc(opts, {
        dryRun: Boolean(values['dry-run']),
        keepJobs: cfg.jobs.map((j) => j.name),
        keepScopes: scopes,
        graceSeconds: grace,
      });
    } else if (action === 'backup') result = await admin.stateBackup(opts, values.output as string);
    else if (action === 'restore')
      result = await admin.stateRestore(opts, positionals[0]!, { force: Boolean(values.force) });
    else
      result = await admin.stateMigrate(opts, {
        dest: values.dest as string,
        destNamespace: values['dest-deployment-id'] as string | undefined,
        force: Boolean(values.force),
      });
  } catch (e) {
    return fail(errorText(e));
  }
  for (const line of result.lines) (line.startsWith(ERROR_PREFIX) ? io.err : io.out)(`${line}\n`);
  return result.ok ? 0 : 1;
}
