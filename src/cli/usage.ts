import { verbsHelp } from './verbs.ts';

/** The first line of the usage, which an argument error repeats (argparse's habit). */
export const DAEMON_USAGE_LINE =
  'usage: cronstable [-h] [-c FILE|DIR] [-l LEVEL] [-v] [--job-set-id] [--shutdown-timeout S] [--version]';

export const DAEMON_USAGE = `${DAEMON_USAGE_LINE}
       cronstable next EXPR [--tz ZONE] [--after ISO8601] [-n N] [--hash-key NAME] [--dst-repeated P] [--dst-skipped P]
       cronstable next --job NAME -c FILE|DIR [--after ISO8601] [-n N] [--dst-repeated P] [--dst-skipped P]
       cronstable [-c FILE|DIR] slots JOB [--since ISO] [--until ISO] [--json]
       cronstable [-c FILE|DIR] state {check,gc,backup,restore,migrate} ...
       cronstable {state,cursor,idempotent,lock,artifact,secret,xcom} ACTION ...   (inside a job)
       cronstable mcp [--url URL] [--token-env VAR] [--timeout SECONDS] [--check]
       cronstable tui [--url URL] [--token TOKEN] [--token-env VAR] [--theme NAME] [--tv] [--job NAME]
                      [--poll SECONDS] [--boot | --no-boot] [--ascii]

A distributed, fault-tolerant cron daemon.

options:
  -h, --help             show this help message and exit
  -c, --config FILE|DIR  configuration file, or directory of .yaml/.yml/crontab files
                         (default: /etc/cronstable.d)
  -l, --log-level LEVEL  CRITICAL, ERROR, WARNING, INFO (default) or DEBUG, in any case
  -v, --validate-config  load and validate the configuration, then exit
                         (0 valid, 1 invalid); it does not mean "verbose"
  --job-set-id           print the job-set id of the configuration and exit
  --shutdown-timeout S   on SIGTERM/SIGINT, let running jobs finish for up to S
                         seconds (default 60), then kill them; a second signal
                         kills them at once
  --version              print the version and exit

verbs (cronstable VERB --help for each):
${verbsHelp()}`;

export const DEFAULT_CONFIG_PATH = '/etc/cronstable.d';
