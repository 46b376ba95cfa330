// The top-level command: the daemon, `-v` validation and `--job-set-id` (the admin verbs `state` and
// `slots` after a `-c` are handed to their modules).
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError } from '../config/errors.ts';
import { loadConfig } from '../config/load.ts';
import type { LoadedConfig } from '../config/types.ts';
import type { CliIo } from '../util/cli-io.ts';
import { errorText } from '../util/errors.ts';
import { getLogger, LEVELS, type LevelName, setLogLevel } from '../util/log.ts';
import { DAEMON_USAGE, DAEMON_USAGE_LINE, DEFAULT_CONFIG_PATH } from './usage.ts';
import { verbArgs } from './verb-args.ts';

const log = getLogger('cronstable');

/** `-l` names a level in any case (spec 09 §7.7); the aliases FATAL, WARN and NOTSET included. */
export function cliLogLevel(name: string): number | undefined {
  const upper = name.toUpperCase();
  return Object.hasOwn(LEVELS, upper) ? LEVELS[upper as LevelName] : undefined;
}

function emitWarnings(cfg: LoadedConfig): void {
  for (const w of cfg.warnings)
    getLogger(w.logger).log(w.level === 'warning' ? LEVELS.WARNING : LEVELS.INFO, w.message);
}

export async function runDaemonCommand(argv: string[], io: CliIo): Promise<number> {
  if (verbArgs(argv, 'state')) return (await import('./stateadmin.ts')).runStateAdmin(argv, io);
  if (verbArgs(argv, 'slots')) return (await import('./slots.ts')).runSlots(argv, io);
  const init = verbArgs(argv, 'init');
  if (init)
    return (await import('./init.ts')).runInitCommand(init.config, init.rest, DEFAULT_CONFIG_PATH, io);
  let values: {
    config?: string;
    'log-level'?: string;
    'validate-config'?: boolean;
    'job-set-id'?: boolean;
    'shutdown-timeout'?: string;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        config: { type: 'string', short: 'c' },
        'log-level': { type: 'string', short: 'l' },
        'validate-config': { type: 'boolean', short: 'v' },
        'job-set-id': { type: 'boolean' },
        'shutdown-timeout': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }));
  } catch (e) {
    io.err(`cronstable: ${errorText(e)}\n${DAEMON_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(DAEMON_USAGE);
    return 0;
  }
  const levelName = values['log-level'] ?? 'INFO';
  const level = cliLogLevel(levelName);
  if (level === undefined) {
    io.err(
      `${DAEMON_USAGE_LINE}\ncronstable: error: invalid --log-level '${levelName}' (use DEBUG, INFO, WARNING, ERROR or CRITICAL)\n`,
    );
    return 2;
  }
  setLogLevel(level);
  const path = values.config ?? DEFAULT_CONFIG_PATH;
  if (path === DEFAULT_CONFIG_PATH && !existsSync(path)) {
    io.err(
      `cronstable error: configuration file not found at the default location (${path}). Run \`cronstable init\` to create a starter configuration there, or point -c/--config at an existing file or directory.\n${DAEMON_USAGE}`,
    );
    return 1;
  }
  if (!values['validate-config'] && !values['job-set-id']) {
    const grace = Number(values['shutdown-timeout'] ?? '60');
    if (!Number.isFinite(grace) || grace < 0) {
      io.err(`cronstable: --shutdown-timeout must be a number of seconds >= 0\n`);
      return 2;
    }
    const { runDaemon } = await import('../daemon/daemon.ts');
    // Its log reader went away: stop as on SIGTERM, so running jobs are handled as usual.
    io.onBrokenPipe?.(() => process.kill(process.pid, 'SIGTERM'));
    // Bun and Deno keep memory differently; the worker-thread loader is for Node.
    const onNode = !('bun' in process.versions) && !('deno' in process.versions);
    return runDaemon({
      configPath: path,
      shutdownGraceMs: grace * 1000,
      workerEntry: onNode ? process.argv[1] : undefined,
    });
  }
  let cfg: LoadedConfig;
  try {
    cfg = loadConfig(path);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    log.error(`Configuration error: ${e.message}`);
    return 1;
  }
  emitWarnings(cfg);
  if (values['job-set-id']) {
    const { jobSetId } = await import('../cluster/jobset.ts');
    io.out(`${jobSetId(cfg.jobs)}\n`);
    return 0;
  }
  log.info('Configuration is valid.');
  return 0;
}
