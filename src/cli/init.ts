// `cronstable init [DIRECTORY]` (spec 09 §9.6): writes a starter config into an empty or new
// configuration directory, refusing a file or a directory that already holds configuration.
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { isCrontabByName } from '../config/files.ts';
import type { CliIo } from '../util/cli-io.ts';
import { errorText } from '../util/errors.ts';

export const STARTER = `# cronstable starter configuration.
# Every *.yaml / *.yml file and every crontab file (crontab, *.crontab, *.cron) in this directory
# is loaded; names starting with "_" or "." are skipped (use them for include-only fragments).
jobs:
  - name: hello
    command: echo "hello from cronstable on $(hostname)"
    schedule: "*/5 * * * *"
    captureStdout: true

# The web API and dashboard; uncomment to serve them on loopback.
# web:
#   listen:
#     - http://127.0.0.1:8080
#   authToken:
#     fromEnvVar: CRONSTABLE_TOKEN
`;

function holdsConfig(name: string): boolean {
  if (name.startsWith('_') || name.startsWith('.')) return false;
  const ext = extname(name);
  return ext === '.yml' || ext === '.yaml' || isCrontabByName(name);
}

/** Runs `init`; `target` is the chosen directory, `isDefault` when it is the default location. */
export function runInit(target: string, isDefault: boolean, io: CliIo): number {
  let entries: string[] = [];
  try {
    const st = statSync(target, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) {
      io.err(
        `cronstable init: ${target} is a file; init writes a starter file into a configuration DIRECTORY. Name a directory, or edit the existing file directly.\n`,
      );
      return 1;
    }
    if (st) entries = readdirSync(target);
  } catch (e) {
    io.err(`cronstable init: could not read ${target}: ${errorText(e)}\n`);
    return 1;
  }
  const live = entries.filter(holdsConfig).sort();
  if (live.length > 0) {
    io.err(
      `cronstable init: ${target} already holds configuration (${live.slice(0, 5).join(', ')}); refusing to add a starter to a live setup\n`,
    );
    return 1;
  }
  const path = join(target, 'cronstable.yaml');
  try {
    mkdirSync(target, { recursive: true });
    writeFileSync(path, STARTER, { flag: 'wx' });
  } catch (e) {
    io.err(`cronstable init: could not write ${path}: ${errorText(e)}\n`);
    return 1;
  }
  io.out(
    `wrote ${path}\nstart the scheduler with: ${isDefault ? 'cronstable' : `cronstable -c ${target}`}\n`,
  );
  return 0;
}

export const INIT_USAGE = `usage: cronstable [-c CONF] init [DIRECTORY]

Writes a starter configuration (cronstable.yaml) into DIRECTORY (default: -c, else /etc/cronstable.d).
Refuses a directory that already holds configuration; DIRECTORY wins over a disagreeing -c.

options:
  -h, --help    show this help
`;

/** `[-c C] init [DIRECTORY]`: DIRECTORY wins over a disagreeing -c. */
export function runInitCommand(
  config: string | undefined,
  rest: string[],
  defaultPath: string,
  io: CliIo,
): number {
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(INIT_USAGE);
    return 0;
  }
  const dir = rest[0];
  if (config !== undefined && dir !== undefined && config !== dir)
    io.err(`cronstable init: -c ${config} and DIRECTORY ${dir} disagree; writing to ${dir}\n`);
  const target = dir ?? config ?? defaultPath;
  return runInit(target, dir === undefined && config === undefined, io);
}
